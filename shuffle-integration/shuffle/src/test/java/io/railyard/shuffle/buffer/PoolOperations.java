package io.railyard.shuffle.buffer;

import static com.google.common.base.Preconditions.checkState;

import io.railyard.shuffle.ShuffleOptions;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;
import org.jspecify.annotations.Nullable;

/**
 * The operations {@link NetworkBufferPoolLincheckTest} runs on a real {@link NetworkBufferPool},
 * each returning what {@link PoolSpecification} must return for the same call: a pool of {@value
 * #TOTAL_PAGES} pages and {@value #SLOTS} owner slots: {@code A} and {@code B} registered at the
 * start with one guaranteed page each and registered throughout, {@code C} the owner that registers
 * and closes; {@code A} and {@code C} have a revocation listener, {@code B} has none. The test's
 * class doc says what each operation stands for.
 *
 * <p>An owner's calls are serialized here (a monitor per slot), as a real owner's are by the one
 * thread that writes or reads through it; operations on different owners run concurrently. The
 * listener records each ask on the calling thread (the pool runs listeners there, after its lock,
 * before the call returns), so every operation returns the asks its own call made.
 */
@Param(name = "slot", gen = IntGen.class, conf = "0:2")
@Param(name = "pages", gen = IntGen.class, conf = "1:2")
@Param(name = "guarantee", gen = IntGen.class, conf = "0:3")
public class PoolOperations {
    static final int TOTAL_PAGES = 3;
    static final int SLOTS = 3;
    static final int[] INITIAL_GUARANTEES = {0, 1};
    // The slot that registers and closes; the others stay registered.
    static final int LATE = 2;
    static final String NO_OWNER = "no owner";
    static final String POOL_CLOSED = "pool closed";

    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder().pageSizeBytes(256).totalPages(TOTAL_PAGES).build();
    private static final DirectMemory UNLIMITED = new DirectMemory(Long.MAX_VALUE, 0, "test");
    private static final Pattern HOLDING = Pattern.compile("closed while holding (\\d+) pages");
    // The asks of the operation running on this thread: the pool calls listeners on the caller's
    // thread, after its lock, before the call returns.
    private static final ThreadLocal<List<String>> ASKED = ThreadLocal.withInitial(ArrayList::new);
    private static final RevocationListener LISTENER =
            (owner, pages) -> ASKED.get().add(ask(owner.name(), pages));

    // Every pool Lincheck had built, for closeAll after the test (one per invocation, thousands).
    private static final Queue<NetworkBufferPool> BUILT = new ConcurrentLinkedQueue<>();

    final NetworkBufferPool pool =
            built(new NetworkBufferPool(OPTIONS, ByteBuffer::allocate, UNLIMITED));
    private final Slot[] slots = new Slot[SLOTS];

    private static NetworkBufferPool built(NetworkBufferPool pool) {
        BUILT.add(pool);
        return pool;
    }

    /**
     * Closes every pool built so far. Scenarios end holding pages (the state they check; the
     * accounting check is {@link #validate}), so the close's "closed with pages in use" is expected
     * — any other failure is not.
     */
    static void closeAll() {
        for (NetworkBufferPool pool = BUILT.poll(); pool != null; pool = BUILT.poll()) {
            try {
                pool.close();
            } catch (IllegalStateException e) {
                if (!String.valueOf(e.getMessage())
                        .startsWith("network buffer pool closed with pages in use")) {
                    throw e;
                }
            }
        }
    }

    /** A pool with {@code A} and {@code B} registered, as {@link PoolSpecification} starts. */
    public PoolOperations() {
        for (int slot = 0; slot < SLOTS; slot++) {
            slots[slot] = new Slot();
        }
        for (int slot = 0; slot < INITIAL_GUARANTEES.length; slot++) {
            slots[slot].owner =
                    pool.register(
                            name(slot), INITIAL_GUARANTEES[slot], "guarantee", listener(slot));
        }
    }

    static String name(int slot) {
        return String.valueOf((char) ('A' + slot));
    }

    static boolean listens(int slot) {
        return slot != 1;
    }

    static String ask(String owner, int pages) {
        return owner + ":" + pages;
    }

    static String withAsks(List<String> asks) {
        return asks.isEmpty() ? "" : asks.toString();
    }

    private static @Nullable RevocationListener listener(int slot) {
        return listens(slot) ? LISTENER : null;
    }

    /** One owner slot; guarded by its own monitor. */
    private static final class Slot {
        @Nullable BufferOwner owner;
        // Pages the test holds for the owner, and its requests not yet collected, oldest first.
        final List<Page> held = new ArrayList<>();
        final ArrayDeque<CompletableFuture<List<Page>>> waiting = new ArrayDeque<>();

        /**
         * Collects the pages the pool granted to waiting requests (served in order, so the oldest
         * futures first; a served future may complete a moment after the pool's lock) until the
         * test holds what the pool says the owner holds. Returns that count.
         */
        int settle(BufferOwner owner) {
            int inUse = owner.pagesInUse();
            while (held.size() < inUse) {
                CompletableFuture<List<Page>> served = waiting.poll();
                checkState(served != null, "the pool lends %s pages the test never got", inUse);
                held.addAll(served.join());
            }
            return inUse;
        }
    }

    /** Registers {@code C}, the owner that comes and goes, if it is not registered. */
    @Operation
    public String register(@Param(name = "guarantee") int pages) {
        int slot = LATE;
        Slot s = slots[slot];
        synchronized (s) {
            if (s.owner != null) {
                return "registered already";
            }
            ASKED.get().clear();
            try {
                s.owner = pool.register(name(slot), pages, "guarantee", listener(slot));
            } catch (InsufficientNetworkMemoryException e) {
                return "insufficient network memory";
            } catch (IllegalStateException e) {
                return poolClosed(e);
            }
            s.held.clear();
            s.waiting.clear();
            return "registered" + asked();
        }
    }

    /** Borrows or takes {@code pages} pages without waiting. */
    @Operation
    public String tryRequest(@Param(name = "slot") int slot, @Param(name = "pages") int pages) {
        Slot s = slots[slot];
        synchronized (s) {
            BufferOwner owner = s.owner;
            if (owner == null) {
                return NO_OWNER;
            }
            try {
                if (pages == 1) {
                    Page page = owner.tryRequest();
                    if (page == null) {
                        return "refused";
                    }
                    s.held.add(page);
                } else {
                    List<Page> out = new ArrayList<>();
                    if (!owner.tryRequest(pages, out)) {
                        return "refused";
                    }
                    s.held.addAll(out);
                }
            } catch (IllegalStateException e) {
                return poolClosed(e);
            }
            return "granted";
        }
    }

    /** Requests {@code pages} pages within the guarantee; they may come later. */
    @Operation
    public String request(@Param(name = "slot") int slot, @Param(name = "pages") int pages) {
        Slot s = slots[slot];
        synchronized (s) {
            BufferOwner owner = s.owner;
            if (owner == null) {
                return NO_OWNER;
            }
            ASKED.get().clear();
            CompletableFuture<List<Page>> future;
            try {
                future = owner.request(pages);
            } catch (IllegalArgumentException e) {
                return "beyond its guarantee";
            } catch (IllegalStateException e) {
                return poolClosed(e);
            }
            s.waiting.add(future);
            return "requested" + asked();
        }
    }

    /** Gives back one page the owner holds. */
    @Operation
    public String recycle(@Param(name = "slot") int slot) {
        Slot s = slots[slot];
        synchronized (s) {
            BufferOwner owner = s.owner;
            if (owner == null) {
                return NO_OWNER;
            }
            if (s.settle(owner) == 0) {
                return "holds none";
            }
            return "recycled" + giveBack(s, owner);
        }
    }

    /** Gives back one page the owner holds beyond its guarantee, as asked by a revocation. */
    @Operation
    public String revoke(@Param(name = "slot") int slot) {
        Slot s = slots[slot];
        synchronized (s) {
            BufferOwner owner = s.owner;
            if (owner == null) {
                return NO_OWNER;
            }
            if (s.settle(owner) <= owner.guaranteedPages()) {
                return "borrows none";
            }
            return "gave back" + giveBack(s, owner);
        }
    }

    /** Unregisters {@code C}. */
    @Operation
    public String close() {
        Slot s = slots[LATE];
        synchronized (s) {
            BufferOwner owner = s.owner;
            if (owner == null) {
                return NO_OWNER;
            }
            ASKED.get().clear();
            try {
                owner.close();
            } catch (IllegalStateException e) {
                Matcher holding = HOLDING.matcher(String.valueOf(e.getMessage()));
                if (!holding.find()) {
                    throw e;
                }
                return "closed while holding " + holding.group(1);
            }
            s.owner = null;
            s.held.clear();
            s.waiting.clear();
            return "closed" + asked();
        }
    }

    /** After each scenario: the pool's accounting holds and no page is held twice. */
    @Validate
    public void validate() {
        pool.checkInvariants();
        Set<Integer> indices = new HashSet<>();
        int held = 0;
        for (Slot s : slots) {
            BufferOwner owner = s.owner;
            if (owner != null) {
                checkState(
                        s.settle(owner) == s.held.size(),
                        "%s holds more than the pool lent",
                        owner);
                for (Page page : s.held) {
                    checkState(indices.add(page.index()), "page %s held twice", page.index());
                }
                held += s.held.size();
            }
        }
        checkState(held + pool.freePages() == TOTAL_PAGES, "pages lost: %s held", held);
    }

    private String giveBack(Slot s, BufferOwner owner) {
        ASKED.get().clear();
        owner.recycle(s.held.remove(s.held.size() - 1));
        return asked();
    }

    private static String asked() {
        List<String> asks = ASKED.get();
        String result = withAsks(asks);
        asks.clear();
        return result;
    }

    private static String poolClosed(IllegalStateException e) {
        if (!"network buffer pool closed".equals(e.getMessage())) {
            throw e;
        }
        return POOL_CLOSED;
    }

    /**
     * The same operations and the pool's close, at most once per scenario: a separate test class,
     * since every request after it fails and would dilute the other operations' scenarios.
     */
    public static class WithPoolClose extends PoolOperations {
        /** Closes the pool, naming the owners that still hold pages. */
        @Operation(runOnce = true)
        public String closePool() {
            try {
                pool.close();
            } catch (IllegalStateException e) {
                String message = String.valueOf(e.getMessage());
                String prefix = "network buffer pool closed with pages in use: ";
                if (!message.startsWith(prefix)) {
                    throw e;
                }
                return "leaked " + message.substring(prefix.length());
            }
            return "closed";
        }
    }
}
