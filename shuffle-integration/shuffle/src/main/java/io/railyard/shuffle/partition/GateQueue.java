package io.railyard.shuffle.partition;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The buffers a {@link LocalInputGate} handed its consumer and the consumer did not poll yet: the
 * queue the IO thread publishes to, and the batch the consumer took from it in one lock and returns
 * one by one without locking. Taking swaps the two queues, so a poll allocates nothing.
 *
 * <p>Threading: the published queue and its counts are guarded by the gate's monitor, which the
 * methods reaching them take (reentrantly when the gate holds it), but for {@link #queuedSeen}, the
 * consumer's look without it (a volatile read). The taken batch and its bytes are the consumer's
 * own: {@link #pollTaken} and {@link #takenIsEmpty} take no lock; the other methods that touch it
 * run on the consumer's thread under the monitor. O(1) per call but {@link #publish} and {@link
 * #clear}, O(buffers).
 */
final class GateQueue {
    private final LocalInputGate gate;

    // Published buffers; takePublished swaps the whole queue with the consumer's empty batch.
    @GuardedBy("gate")
    private ArrayDeque<LocalBuffer> queue = new ArrayDeque<>();

    @GuardedBy("gate")
    private long queueBytes;

    // Buffers in the queue; read without the lock by the consumer's fast path (queuedSeen).
    @GuardedBy("gate")
    private volatile int queued;

    // Confined to the consumer: buffers taken from the queue in one lock, returned one by one.
    private ArrayDeque<LocalBuffer> taken = new ArrayDeque<>();
    private long takenBytes;

    /** The queues of {@code gate}, both empty. */
    GateQueue(LocalInputGate gate) {
        this.gate = gate;
    }

    /** The next buffer the consumer took, removed; null if it took none or returned them all. */
    @Nullable LocalBuffer pollTaken() {
        LocalBuffer next = taken.poll();
        if (next != null) {
            takenBytes -= next.data().remaining();
        }
        return next;
    }

    /** Whether the consumer has returned every buffer it took. */
    boolean takenIsEmpty() {
        return taken.isEmpty();
    }

    /** Whether buffers wait in the queue, as the consumer's fast path sees it without the lock. */
    @SuppressWarnings("GuardedBy") // a volatile read; the caller decides under the lock
    boolean queuedSeen() {
        return queued > 0;
    }

    /**
     * The consumer takes every published buffer at once (the queues swap) and returns the first,
     * removed; null if none was published.
     */
    @Nullable LocalBuffer takePublished() {
        synchronized (gate) {
            if (queue.isEmpty()) {
                return null;
            }
            ArrayDeque<LocalBuffer> published = queue;
            queue = taken;
            taken = published;
            takenBytes = queueBytes;
            queueBytes = 0;
            queued = 0;
        }
        return pollTaken();
    }

    /** Publishes {@code buffers}, in order. */
    void publish(List<LocalBuffer> buffers) {
        synchronized (gate) {
            for (int i = 0; i < buffers.size(); i++) {
                LocalBuffer buffer = buffers.get(i);
                queue.add(buffer);
                queueBytes += buffer.data().remaining();
            }
            queued = queue.size();
        }
    }

    /** Whether no published buffer waits to be taken. */
    boolean isEmpty() {
        synchronized (gate) {
            return queue.isEmpty();
        }
    }

    /** Published buffers waiting to be taken. */
    int size() {
        synchronized (gate) {
            return queue.size();
        }
    }

    /** Bytes of the buffers published or taken and not yet polled. */
    long bytesReady() {
        synchronized (gate) {
            return takenBytes + queueBytes;
        }
    }

    /** Removes every buffer, published or taken (the gate closes, on the consumer's thread). */
    List<LocalBuffer> clear() {
        synchronized (gate) {
            List<LocalBuffer> all = new ArrayList<>(queue);
            all.addAll(taken);
            queue.clear();
            taken.clear();
            queueBytes = 0;
            queued = 0;
            takenBytes = 0;
            return all;
        }
    }
}
