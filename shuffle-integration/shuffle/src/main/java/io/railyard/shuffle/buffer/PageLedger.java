package io.railyard.shuffle.buffer;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * The books of one {@link NetworkBufferPool}: its pages and who holds each, the free pages, the
 * open owners with their accounts ({@link OwnerAccounts}), and the sums the grant rule reads — the
 * pages pledged ({@code guaranteed}), the pages promised and not yet taken ({@code unused}: the sum
 * over owners of {@code max(0, guarantee - inUse)}) and the pages draining owners hold beyond their
 * guarantees ({@code draining}, and how many they gave back). Every change of an owner's pages goes
 * through here, so the sums always agree with the accounts ({@link #check}).
 *
 * <p>Not thread-safe: reached only through its pool's field, which the pool's lock guards; every
 * method must be called with that lock held. It calls no caller code and takes no lock. Granting
 * and giving back a page are O(1) and allocate nothing; {@link #asks}, {@link #stats} and {@link
 * #leaks} are O(owners) (the asks O(owners log owners)) and allocate their results.
 */
final class PageLedger {
    private final Page[] pages;

    /** Per page: the id of the owner holding it, or -1. */
    private final int[] holder;

    /** The free pages' indices, {@code freeCount} of them; the next taken is the last. */
    private final int[] free;

    private int freeCount;

    /** The open owners, in registration order. */
    private final List<BufferOwner> owners = new ArrayList<>();

    private final OwnerAccounts accounts = new OwnerAccounts();

    private int guaranteed;

    /** Pages held beyond their guarantees by owners that drain. */
    private int draining;

    private int unused;

    /** Pages draining owners gave back so far: it only grows. */
    private long drained;

    /** The books of {@code pages}, all free. */
    PageLedger(Page[] pages) {
        int total = pages.length;
        this.pages = pages;
        this.holder = new int[total];
        this.free = new int[total];
        Arrays.fill(holder, -1);
        for (int i = 0; i < total; i++) {
            free[i] = total - 1 - i; // page 0 on top
        }
        this.freeCount = total;
    }

    /** Pages nobody holds. */
    int freeCount() {
        return freeCount;
    }

    /** Pages pledged to the open owners. */
    int guaranteed() {
        return guaranteed;
    }

    /** Pages held beyond their guarantees by owners that drain. */
    int draining() {
        return draining;
    }

    /** Pages draining owners gave back so far, a count that only grows. */
    long drained() {
        return drained;
    }

    /** Pages promised to owners and not yet taken by them. */
    int unused() {
        return unused;
    }

    /** Free pages no guarantee needs. */
    int spare() {
        return Math.max(0, freeCount - unused);
    }

    /** The open owners, in registration order (the live list: read it, do not keep it). */
    List<BufferOwner> owners() {
        return owners;
    }

    /** Whether {@code owner} is open (registered and not closed). */
    boolean isOpen(BufferOwner owner) {
        return accounts.isOpen(owner);
    }

    /** Pages {@code owner} holds (0 once closed). */
    int inUse(BufferOwner owner) {
        return accounts.inUse(owner);
    }

    /** Pages {@code owner}'s waiting requests want (0 once closed). */
    int waiting(BufferOwner owner) {
        return accounts.waiting(owner);
    }

    /** {@code owner}'s waiting requests, if open, want {@code delta} pages more (or fewer). */
    void addWaiting(BufferOwner owner, int delta) {
        accounts.addWaiting(owner, delta);
    }

    /** Whether {@code pages} more can be pledged: the guarantees would not exceed the pages. */
    boolean canPledge(int pages) {
        return (long) guaranteed + pages <= this.pages.length;
    }

    /** An account slot for an owner about to be {@link #open opened}. */
    int reserveSlot() {
        return accounts.reserve();
    }

    /** Opens {@code owner}'s account: its guarantee is pledged and promised; it holds nothing. */
    void open(BufferOwner owner) {
        accounts.open(owner);
        owners.add(owner);
        guaranteed += owner.guaranteedPages();
        unused += owner.guaranteedPages();
    }

    /** Closes {@code owner}'s account, which holds nothing: its guarantee is released. */
    void close(BufferOwner owner) {
        accounts.close(owner);
        owners.remove(owner);
        guaranteed -= owner.guaranteedPages();
        unused -= owner.guaranteedPages();
    }

    /**
     * Lowers {@code owner}'s guarantee to {@code pages} (checked by the pool: within [0, its
     * guarantee], and it waits for nothing); what it holds beyond counts as borrowed from now on.
     */
    void lowerGuarantee(BufferOwner owner, int pages) {
        int g = owner.guaranteedPages();
        int inUse = accounts.inUse(owner);
        unused += Math.max(0, pages - inUse) - Math.max(0, g - inUse);
        guaranteed -= g - pages;
        if (owner.drains) {
            draining += Math.max(0, inUse - pages) - Math.max(0, inUse - g);
        }
        owner.guaranteeLowered(pages);
    }

    /**
     * Whether {@code n} pages may go to {@code owner} now: they are free, the free pages left still
     * cover every other owner's promise, and (if {@code requestsWait}) no waiting request is
     * overtaken within a guarantee.
     */
    boolean mayGrant(BufferOwner owner, int n, boolean requestsWait) {
        int left = owner.guaranteedPages() - accounts.inUse(owner) - accounts.waiting(owner);
        int entitled = Math.min(n, Math.max(0, left));
        return freeCount >= n
                && freeCount - n >= unused - entitled
                && (!requestsWait || entitled == 0);
    }

    /** Gives {@code n} free pages (there must be as many) to {@code owner}, appended to out. */
    void grant(BufferOwner owner, int n, List<Page> out) {
        for (int i = 0; i < n; i++) {
            out.add(takeFree(owner));
        }
        setInUse(owner, accounts.inUse(owner) + n);
    }

    /** Gives one free page (there must be one) to {@code owner}. */
    Page grantOne(BufferOwner owner) {
        Page page = takeFree(owner);
        setInUse(owner, accounts.inUse(owner) + 1);
        return page;
    }

    /**
     * {@code owner} gives {@code page} back.
     *
     * @throws IllegalArgumentException if the page is not of this pool
     * @throws IllegalStateException if {@code owner} does not hold it
     */
    void giveBack(BufferOwner owner, Page page) {
        int index = page.index();
        checkArgument(
                index >= 0 && index < pages.length && pages[index] == page,
                "page %s is not of this pool",
                index);
        if (holder[index] != owner.id) {
            throw new IllegalStateException(
                    "owner '"
                            + owner.name()
                            + "' recycled page "
                            + index
                            + " held by "
                            + holderName(holder[index]));
        }
        giveBack(owner, index);
    }

    /** {@code owner}, which holds page {@code index}, gives it back (unchecked). */
    void giveBack(BufferOwner owner, int index) {
        holder[index] = -1;
        free[freeCount++] = index;
        setInUse(owner, accounts.inUse(owner) - 1);
    }

    /** Pops a free page for {@code owner}, cleared; the caller accounts for it with setInUse. */
    private Page takeFree(BufferOwner owner) {
        int index = free[--freeCount];
        holder[index] = owner.id;
        Page page = pages[index];
        page.buffer().clear();
        return page;
    }

    private void setInUse(BufferOwner owner, int inUse) {
        int g = owner.guaranteedPages();
        int before = accounts.inUse(owner);
        unused += Math.max(0, g - inUse) - Math.max(0, g - before);
        if (owner.drains) {
            int change = Math.max(0, inUse - g) - Math.max(0, before - g);
            draining += change;
            if (change < 0) {
                drained -= change;
            }
        }
        accounts.setInUse(owner, inUse);
    }

    /**
     * The asks of borrowers, largest first, to give back {@code shortfall} pages (positive) in all:
     * for the pool to run once its lock is released. Only owners with a listener are asked.
     */
    List<Runnable> asks(int shortfall) {
        List<Borrower> borrowers = new ArrayList<>();
        for (BufferOwner owner : owners) {
            int borrowed = accounts.inUse(owner) - owner.guaranteedPages();
            if (owner.listener != null && borrowed > 0) {
                borrowers.add(new Borrower(owner, borrowed));
            }
        }
        borrowers.sort(Comparator.comparingInt(Borrower::pages).reversed());
        List<Runnable> asks = new ArrayList<>();
        int left = shortfall;
        for (Borrower borrower : borrowers) {
            if (left <= 0) {
                break;
            }
            int ask = Math.min(left, borrower.pages());
            left -= ask;
            BufferOwner owner = borrower.owner();
            RevocationListener listener = Objects.requireNonNull(owner.listener);
            asks.add(() -> listener.revoke(owner, ask));
        }
        return asks;
    }

    /** An owner holding {@code pages} beyond its guarantee. */
    private record Borrower(BufferOwner owner, int pages) {}

    /** Every open owner's pages, in registration order. */
    List<OwnerStats> stats() {
        List<OwnerStats> stats = new ArrayList<>(owners.size());
        for (BufferOwner owner : owners) {
            stats.add(new OwnerStats(owner.name(), owner.guaranteedPages(), accounts.inUse(owner)));
        }
        return stats;
    }

    /** The owners that hold pages, each as "'name' holds n" (a pool closed with them leaks). */
    List<String> leaks() {
        List<String> leaks = new ArrayList<>();
        for (BufferOwner owner : owners) {
            int held = accounts.inUse(owner);
            if (held > 0) {
                leaks.add("'" + owner.name() + "' holds " + held);
            }
        }
        return leaks;
    }

    /**
     * Checks the books against each other, and that the first waiting request, of {@code headPages}
     * (0: none waits), does not fit the free pages.
     *
     * @throws IllegalStateException naming the first sum that disagrees
     */
    void check(int headPages) {
        int inUse = 0;
        int promised = 0;
        int pledged = 0;
        for (BufferOwner owner : owners) {
            inUse += accounts.inUse(owner);
            promised += Math.max(0, owner.guaranteedPages() - accounts.inUse(owner));
            pledged += owner.guaranteedPages();
        }
        int drainingNow = 0;
        for (BufferOwner owner : owners) {
            if (owner.drains) {
                drainingNow += Math.max(0, accounts.inUse(owner) - owner.guaranteedPages());
            }
        }
        checkState(drainingNow == draining, "draining %s != %s", draining, drainingNow);
        int held = 0;
        for (int h : holder) {
            held += h >= 0 ? 1 : 0;
        }
        checkState(
                inUse == pages.length - freeCount,
                "owners hold %s, pool lent %s",
                inUse,
                pages.length - freeCount);
        checkState(held == inUse, "holders %s != in use %s", held, inUse);
        checkState(promised == unused, "unused %s != %s", unused, promised);
        checkState(
                pledged == guaranteed && guaranteed <= pages.length, "guaranteed %s", guaranteed);
        checkState(
                headPages == 0 || headPages > freeCount,
                "the head request (%s pages) fits the %s free pages but waits",
                headPages,
                freeCount);
        for (BufferOwner owner : owners) {
            int waiting = accounts.waiting(owner);
            checkState(
                    waiting == 0 || accounts.inUse(owner) + waiting <= owner.guaranteedPages(),
                    "owner '%s' waits for %s pages beyond its guarantee",
                    owner.name(),
                    waiting);
        }
    }

    private String holderName(int id) {
        if (id < 0) {
            return "nobody (recycled twice?)";
        }
        for (BufferOwner owner : owners) {
            if (owner.id == id) {
                return "'" + owner.name() + "'";
            }
        }
        return "owner #" + id;
    }
}
