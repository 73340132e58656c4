package io.railyard.shuffle.partition;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The sessions a {@link LocalInputGate} has open with the IO thread ({@link ChannelReader}, one per
 * feed entry it reads from disk), in a fixed number of slots, and their turns: a session waits in a
 * FIFO for a turn (wanting), or the IO thread has it, from dispatch until served (in service). A
 * session reads data that is there already (a finished partition, a published region): it never
 * waits for more.
 *
 * <p>Not thread-safe: reached only through its gate's field, which the gate's monitor guards; every
 * method must be called with that monitor held, but {@link #countSeen}, the consumer's lock-free
 * look (the count is volatile, written only under the monitor). Each call is O(1), except {@link
 * #freeSlot}, {@link #isReading} and {@link #all}, O(slots); a turn adds a FIFO entry.
 */
final class GateSessions {
    // A session's turn, as bits of turns[session.slot]: it waits in the FIFO (WANTING); the IO
    // thread has its turn, from dispatch to served (IN_SERVICE).
    private static final byte WANTING = 1;
    private static final byte IN_SERVICE = 2;

    private final @Nullable ChannelReader[] sessions;
    private final byte[] turns;
    private final int maxInService;

    // Sessions open now; read without the lock by the consumer's fast path (written under it).
    private volatile int count;

    private final ArrayDeque<ChannelReader> wanting = new ArrayDeque<>();
    private int inService;

    /** {@code slots} slots, none open; at most {@code maxInService} sessions in service at once. */
    GateSessions(int slots, int maxInService) {
        this.sessions = new ChannelReader[slots];
        this.turns = new byte[slots];
        this.maxInService = maxInService;
    }

    /** A free slot, or -1 if every slot is taken. */
    int freeSlot() {
        for (int slot = 0; slot < sessions.length; slot++) {
            if (sessions[slot] == null) {
                return slot;
            }
        }
        return -1;
    }

    /** Opens {@code session} in its slot, which is free: it waits for its first turn. */
    @SuppressWarnings("NonAtomicVolatileUpdate") // written only under the gate's lock
    void open(ChannelReader session) {
        sessions[session.slot] = session;
        count++;
        turns[session.slot] = WANTING;
        wanting.add(session);
    }

    /** {@code session} ended: its slot is free (if it still holds it). */
    @SuppressWarnings("NonAtomicVolatileUpdate") // written only under the gate's lock
    void end(ChannelReader session) {
        if (sessions[session.slot] == session) {
            if (has(session, IN_SERVICE)) {
                inService--;
            }
            sessions[session.slot] = null;
            turns[session.slot] = 0;
            count--;
        }
    }

    /** Sessions open now, as the consumer sees them without the lock (a volatile read). */
    int countSeen() {
        return count;
    }

    /** Sessions open now. */
    int count() {
        return count;
    }

    /** Sessions in the IO thread's hands now. */
    int inService() {
        return inService;
    }

    /** Whether {@code session} is open (it holds its slot: it did not end). */
    boolean isOpen(ChannelReader session) {
        return sessions[session.slot] == session;
    }

    /** Whether a session of channel {@code index} is open. */
    boolean isReading(int index) {
        for (ChannelReader session : sessions) {
            if (session != null && session.index == index) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code session} waits for a turn. */
    boolean isWanting(ChannelReader session) {
        return has(session, WANTING);
    }

    /** A waiting session gets its turn: it leaves the FIFO (its entry is skipped) for service. */
    void enterService(ChannelReader session) {
        turns[session.slot] = (byte) ((turns[session.slot] & ~WANTING) | IN_SERVICE);
        inService++;
    }

    /**
     * The next waiting session, given its turn (in service now); null if none waits or {@code
     * maxInService} are in service. Entries of sessions served out of order or ended are skipped.
     */
    @Nullable ChannelReader nextTurn() {
        while (!wanting.isEmpty() && inService < maxInService) {
            ChannelReader session = wanting.poll();
            if (sessions[session.slot] != session || !has(session, WANTING)) {
                continue; // served out of order meanwhile, or ended
            }
            enterService(session);
            return session;
        }
        return null;
    }

    /**
     * The IO thread served {@code session}, which is open: it leaves service, and waits for its
     * next turn if {@code again}.
     */
    void served(ChannelReader session, boolean again) {
        if (has(session, IN_SERVICE)) {
            turns[session.slot] &= ~IN_SERVICE;
            inService--;
        }
        if (again) {
            turns[session.slot] |= WANTING;
            wanting.add(session);
        }
    }

    /** No session waits for a turn any more (the gate failed or closed). */
    void stopWanting() {
        wanting.clear();
    }

    /** Every open session, for the scheduler to drop (the gate failed or closed). */
    List<ChannelReader> all() {
        List<ChannelReader> all = new ArrayList<>();
        for (ChannelReader session : sessions) {
            if (session != null) {
                all.add(session);
            }
        }
        return all;
    }

    private boolean has(ChannelReader session, byte bit) {
        return (turns[session.slot] & bit) != 0;
    }
}
