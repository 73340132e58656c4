package io.railyard.shuffle.buffer;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * A pool's accounts of its open {@link BufferOwner}s: per owner, the pages it holds and the pages
 * its waiting requests want, in arrays indexed by the owner's slot. A closed owner's slot is
 * reused, so the arrays are as long as the most owners ever open at once; a closed owner holds
 * nothing.
 *
 * <p>Not thread-safe: reached only through its pool's field, which the pool's lock guards. Every
 * call is O(1) and allocates nothing, but {@link #reserve()}, which grows the arrays when every
 * slot is taken (amortised O(1)).
 */
final class OwnerAccounts {
    private @Nullable BufferOwner[] owners = new BufferOwner[8];
    private int[] inUse = new int[8];
    private int[] waiting = new int[8];
    private int[] freeSlots = new int[8];
    private int freeCount;
    private int slotsUsed;

    /** A slot for an owner about to be {@link #open opened}. */
    int reserve() {
        if (freeCount > 0) {
            return freeSlots[--freeCount];
        }
        if (slotsUsed == owners.length) {
            int length = 2 * owners.length;
            owners = Arrays.copyOf(owners, length);
            inUse = Arrays.copyOf(inUse, length);
            waiting = Arrays.copyOf(waiting, length);
            freeSlots = Arrays.copyOf(freeSlots, length);
        }
        return slotsUsed++;
    }

    /** Opens the account of {@code owner}, in its reserved slot: it holds and waits for nothing. */
    void open(BufferOwner owner) {
        owners[owner.slot] = owner;
        inUse[owner.slot] = 0;
        waiting[owner.slot] = 0;
    }

    /** Closes the account of {@code owner} (which must be open); its slot is free again. */
    void close(BufferOwner owner) {
        owners[owner.slot] = null;
        freeSlots[freeCount++] = owner.slot;
    }

    /** Whether {@code owner} is open (registered and not closed). */
    boolean isOpen(BufferOwner owner) {
        return owners[owner.slot] == owner;
    }

    /** Pages {@code owner} holds (0 once closed). */
    int inUse(BufferOwner owner) {
        return isOpen(owner) ? inUse[owner.slot] : 0;
    }

    /** {@code owner}, which must be open, holds {@code pages} now. */
    void setInUse(BufferOwner owner, int pages) {
        inUse[owner.slot] = pages;
    }

    /** Pages {@code owner}'s waiting requests want (0 once closed). */
    int waiting(BufferOwner owner) {
        return isOpen(owner) ? waiting[owner.slot] : 0;
    }

    /** {@code owner}'s waiting requests, if open, want {@code delta} pages more (or fewer). */
    void addWaiting(BufferOwner owner, int delta) {
        if (isOpen(owner)) {
            waiting[owner.slot] += delta;
        }
    }
}
