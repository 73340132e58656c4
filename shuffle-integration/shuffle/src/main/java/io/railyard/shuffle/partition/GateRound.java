package io.railyard.shuffle.partition;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayList;
import java.util.List;

/**
 * What the IO thread hands one {@link LocalInputGate} during a round of its work: the buffers it
 * decoded for the gate and the gate's sessions that ended, published together at the round's end
 * ({@link LocalInputGate#publish}) in one lock of the gate with at most one wake-up; and the
 * deferred wake-up of a gate of blocking partitions — whether buffers were published without waking
 * the consumer, since when, and whether the IO thread's list of gates to publish to again holds
 * this gate.
 *
 * <p>Threading: confined to the IO thread (or a test acting as it), but for the time the deferral
 * began, which the gate's monitor guards ({@link #wake} takes it; the gate calls it holding it).
 * O(1) per call; allocates nothing (the lists keep their capacity from round to round).
 */
final class GateRound {
    private final LocalInputGate gate;

    // What the IO thread decoded for the gate this round, and the sessions that ended.
    private final ArrayList<LocalBuffer> decoded = new ArrayList<>();
    private final ArrayList<ChannelReader> ended = new ArrayList<>();

    // Published buffers the consumer was not woken for (see wake), and whether the IO thread's
    // list of deferred gates holds this one.
    private boolean wakeDeferred;
    private boolean onDeferredList;

    @GuardedBy("gate")
    private long deferredSince;

    /** The rounds of {@code gate}; nothing delivered yet. */
    GateRound(LocalInputGate gate) {
        this.gate = gate;
    }

    /**
     * {@code buffer} (from {@link LocalInputGate#tryTake}) holds decoded data; the consumer sees it
     * at the next {@link LocalInputGate#publish}. No lock. True if the gate had nothing to publish
     * before (the caller then publishes it once it is done with the gate for now).
     */
    boolean deliver(LocalBuffer buffer) {
        decoded.add(buffer);
        return decoded.size() == 1 && ended.isEmpty();
    }

    /**
     * {@code session} has no more data (its partition, or its region), which the consumer sees at
     * the next {@link LocalInputGate#publish} (after the session's last buffers); its slot is free
     * then. True as {@link #deliver}.
     */
    boolean channelFinished(ChannelReader session) {
        ended.add(session);
        return decoded.isEmpty() && ended.size() == 1;
    }

    /** The buffers delivered this round, in order (the live list: read it, do not keep it). */
    List<LocalBuffer> decoded() {
        return decoded;
    }

    /** The sessions that ended this round (the live list: read it, do not keep it). */
    List<ChannelReader> ended() {
        return ended;
    }

    /**
     * Whether the publish wakes the consumer: if the gate says a wake-up is {@code due}, or the
     * first deferred buffer waited {@value LocalInputGate#MAX_WAKE_DELAY} ns; else, with buffers
     * {@code pending} for an unwoken consumer, the wake-up is deferred. Called under the gate's
     * monitor (taken again here).
     */
    boolean wake(boolean pending, boolean due) {
        synchronized (gate) {
            boolean wake =
                    due
                            || (wakeDeferred
                                    && System.nanoTime() - deferredSince
                                            > LocalInputGate.MAX_WAKE_DELAY);
            if (pending && !wake && !wakeDeferred) {
                deferredSince = System.nanoTime();
            }
            wakeDeferred = pending && !wake;
            return wake;
        }
    }

    /** The round ends: what it delivered was published. True if it delivered buffers. */
    boolean end() {
        boolean handed = !decoded.isEmpty();
        decoded.clear();
        ended.clear();
        return handed;
    }

    /** Whether the consumer was not woken for published buffers. */
    boolean wakeDeferred() {
        return wakeDeferred;
    }

    /**
     * The IO thread puts the gate on its list of gates to publish to again; false if it is on it
     * already.
     */
    boolean enterDeferredList() {
        boolean enter = !onDeferredList;
        onDeferredList = true;
        return enter;
    }

    /** The IO thread took the gate off its list of gates to publish to again. */
    void leaveDeferredList() {
        onDeferredList = false;
    }
}
