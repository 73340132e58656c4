package io.railyard.shuffle.buffer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The sequential specification of {@link NetworkBufferPoolLincheckTest}: the documented rules of
 * {@link NetworkBufferPool} as plain counters, with the same operations and results as the test's,
 * so Lincheck can ask whether every concurrent history equals some order of these calls. The rules
 * are those of {@link NetworkBufferPoolModelTest}'s model:
 *
 * <ul>
 *   <li>a request of n pages, e of them within the owner's guarantee (less what it waits for), is
 *       granted iff {@code free >= n && free - n >= unused - e}, and, while requests wait, only if
 *       {@code e == 0};
 *   <li>requests within a guarantee wait FIFO, all or nothing; a recycle or a close serves the head
 *       while it fits;
 *   <li>a shortfall ({@code unused - free > 0}, or more pages waited for than free) asks borrowers
 *       with a listener, largest first, ties in registration order, for the pages short — at a
 *       registration, at a request that waits, and after serving while requests still wait.
 * </ul>
 *
 * <p>Not thread-safe: Lincheck calls it from one thread. Each method is O(owners + waiting).
 */
public final class PoolSpecification {
    private final List<Owner> owners = new ArrayList<>();
    private final @Nullable Owner[] slots = new Owner[PoolOperations.SLOTS];
    private final ArrayDeque<Waiting> queue = new ArrayDeque<>();
    private int free = PoolOperations.TOTAL_PAGES;
    private boolean closed;

    /** The initial state of {@link PoolOperations}: its first owners registered. */
    public PoolSpecification() {
        for (int slot = 0; slot < PoolOperations.INITIAL_GUARANTEES.length; slot++) {
            register(slot, PoolOperations.INITIAL_GUARANTEES[slot]);
        }
    }

    private static final class Owner {
        final String name;
        final int guarantee;
        final boolean listens;
        int inUse;
        int pending;

        Owner(String name, int guarantee, boolean listens) {
            this.name = name;
            this.guarantee = guarantee;
            this.listens = listens;
        }

        int unused() {
            return Math.max(0, guarantee - inUse);
        }

        int borrowed() {
            return Math.max(0, inUse - guarantee);
        }
    }

    private record Waiting(Owner owner, int pages) {}

    /** See {@link PoolOperations#register}. */
    public String register(int guarantee) {
        return register(PoolOperations.LATE, guarantee);
    }

    private String register(int slot, int guarantee) {
        if (slots[slot] != null) {
            return "registered already";
        }
        if (closed) {
            return PoolOperations.POOL_CLOSED;
        }
        int guaranteed = owners.stream().mapToInt(o -> o.guarantee).sum();
        if (guaranteed + guarantee > PoolOperations.TOTAL_PAGES) {
            return "insufficient network memory";
        }
        Owner owner = new Owner(PoolOperations.name(slot), guarantee, PoolOperations.listens(slot));
        owners.add(owner);
        slots[slot] = owner;
        return "registered" + asks(revocations());
    }

    /** See {@link PoolOperations#tryRequest}. */
    public String tryRequest(int slot, int pages) {
        Owner owner = slots[slot];
        if (owner == null) {
            return PoolOperations.NO_OWNER;
        }
        if (closed) {
            return PoolOperations.POOL_CLOSED;
        }
        int entitled = Math.min(pages, Math.max(0, owner.guarantee - owner.inUse - owner.pending));
        boolean granted =
                free >= pages
                        && free - pages >= unused() - entitled
                        && (queue.isEmpty() || entitled == 0);
        if (!granted) {
            return "refused";
        }
        take(owner, pages);
        return "granted";
    }

    /** See {@link PoolOperations#request}. */
    public String request(int slot, int pages) {
        Owner owner = slots[slot];
        if (owner == null) {
            return PoolOperations.NO_OWNER;
        }
        if (closed) {
            return PoolOperations.POOL_CLOSED;
        }
        if (owner.inUse + owner.pending + pages > owner.guarantee) {
            return "beyond its guarantee";
        }
        if (queue.isEmpty() && free >= pages) {
            take(owner, pages);
            return "requested";
        }
        queue.add(new Waiting(owner, pages));
        owner.pending += pages;
        return "requested" + asks(revocations());
    }

    /** See {@link PoolOperations#recycle}. */
    public String recycle(int slot) {
        Owner owner = slots[slot];
        if (owner == null) {
            return PoolOperations.NO_OWNER;
        }
        if (owner.inUse == 0) {
            return "holds none";
        }
        return "recycled" + giveBack(owner);
    }

    /** See {@link PoolOperations#revoke}. */
    public String revoke(int slot) {
        Owner owner = slots[slot];
        if (owner == null) {
            return PoolOperations.NO_OWNER;
        }
        if (owner.borrowed() == 0) {
            return "borrows none";
        }
        return "gave back" + giveBack(owner);
    }

    /** See {@link PoolOperations#close}. */
    public String close() {
        int slot = PoolOperations.LATE;
        Owner owner = slots[slot];
        if (owner == null) {
            return PoolOperations.NO_OWNER;
        }
        if (owner.inUse > 0) {
            return "closed while holding " + owner.inUse;
        }
        queue.removeIf(w -> w.owner() == owner);
        owner.pending = 0;
        owners.remove(owner);
        slots[slot] = null;
        return "closed" + asks(serve());
    }

    /** See {@link PoolOperations.WithPoolClose#closePool}. */
    public String closePool() {
        if (closed) {
            return "closed";
        }
        closed = true;
        queue.clear(); // waiting requests fail; their owners' pending counts stay, as in the pool
        List<String> leaks = new ArrayList<>();
        for (Owner owner : owners) {
            if (owner.inUse > 0) {
                leaks.add("'" + owner.name + "' holds " + owner.inUse);
            }
        }
        return leaks.isEmpty() ? "closed" : "leaked " + String.join(", ", leaks);
    }

    private int unused() {
        return owners.stream().mapToInt(Owner::unused).sum();
    }

    private void take(Owner owner, int pages) {
        free -= pages;
        owner.inUse += pages;
    }

    private String giveBack(Owner owner) {
        owner.inUse--;
        free++;
        return asks(serve());
    }

    /** Serves the queue's head while it fits; then the asks if requests still wait. */
    private List<String> serve() {
        while (!queue.isEmpty() && queue.peek().pages() <= free) {
            Waiting served = queue.poll();
            served.owner().pending -= served.pages();
            take(served.owner(), served.pages());
        }
        return queue.isEmpty() ? List.of() : revocations();
    }

    private List<String> revocations() {
        int waiting = queue.stream().mapToInt(Waiting::pages).sum();
        int shortfall = Math.max(unused() - free, waiting - free);
        List<Owner> borrowers = new ArrayList<>();
        for (Owner owner : owners) {
            if (owner.listens && owner.borrowed() > 0) {
                borrowers.add(owner);
            }
        }
        borrowers.sort(Comparator.comparingInt(Owner::borrowed).reversed()); // stable
        List<String> asks = new ArrayList<>();
        for (Owner borrower : borrowers) {
            if (shortfall <= 0) {
                break;
            }
            int ask = Math.min(shortfall, borrower.borrowed());
            asks.add(PoolOperations.ask(borrower.name, ask));
            shortfall -= ask;
        }
        return asks;
    }

    private static String asks(List<String> asks) {
        return PoolOperations.withAsks(asks);
    }
}
