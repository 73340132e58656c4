package io.railyard.benchmarks.procedures;

import static com.google.common.base.Preconditions.checkState;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One writer thread of a network benchmark, the same on both sides of the side-by-side comparison:
 * it sends a round of records when asked ({@link #send}) and reports what it sent, or fails the
 * round and interrupts the round's receiver so that nobody waits for records that will not come.
 * Subclasses write the records ({@link #sendRound}) and close their output when the thread ends.
 *
 * <p>Threading: {@link #start}, {@link #send} and {@link #stop} are called by the driving thread;
 * {@link #sendRound} and {@link #closeOutput} run on the writer's own thread (or, for a writer
 * never started, {@link #closeOutput} on the thread that stops it).
 */
public abstract class RoundWriter {
    /** Bits of a record value that count its sequence; the writer's index is above them. */
    protected static final long SEQUENCE_MASK = (1L << 40) - 1;

    private final int index;
    private final Thread thread;
    private final BlockingQueue<Round> rounds = new ArrayBlockingQueue<>(1);

    /** A round to send, or (records < 0) the end of the thread. */
    private record Round(
            long records, CompletableFuture<Delivered> sent, @Nullable Thread receiver) {}

    /** Writer {@code index}, on a daemon thread named {@code threadName} (not started). */
    protected RoundWriter(int index, String threadName) {
        this.index = index;
        this.thread = new Thread(this::loop, threadName);
        thread.setDaemon(true);
    }

    /** The writer's index: the high bits of its record values. */
    protected final int index() {
        return index;
    }

    /** Starts the writer's thread. */
    public final void start() {
        thread.start();
    }

    /**
     * Asks for a round of {@code records} records; the future completes with what was sent. If the
     * round fails, {@code receiver} (if not null) is interrupted.
     *
     * @throws IllegalStateException if the previous round is still queued
     */
    public final CompletableFuture<Delivered> send(long records, @Nullable Thread receiver) {
        CompletableFuture<Delivered> sent = new CompletableFuture<>();
        checkState(rounds.offer(new Round(records, sent, receiver)), "writer %s is busy", index);
        return sent;
    }

    /**
     * Ends the thread (after its round; interrupted if it is still blocked 30 s later, on a full
     * partition whose reader is gone) and closes the output; a failure to stop is added to {@code
     * failures}.
     */
    public final void stop(List<? super RuntimeException> failures) {
        if (thread.getState() == Thread.State.NEW) {
            closeOutput();
            return;
        }
        try {
            rounds.clear();
            rounds.put(new Round(-1, new CompletableFuture<>(), null));
            thread.join(TimeUnit.SECONDS.toMillis(30));
            if (thread.isAlive()) {
                thread.interrupt();
                thread.join(TimeUnit.SECONDS.toMillis(5));
            }
            checkState(!thread.isAlive(), "writer %s did not stop", index);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failures.add(new IllegalStateException("interrupted stopping writer " + index, e));
        } catch (RuntimeException e) {
            failures.add(e);
        }
    }

    private void loop() {
        try {
            while (true) {
                Round round = rounds.take();
                if (round.records() < 0) {
                    return;
                }
                try {
                    round.sent().complete(sendRound(round.records()));
                } catch (IOException | RuntimeException e) {
                    round.sent().completeExceptionally(e);
                    Thread receiver = round.receiver();
                    if (receiver != null) {
                        receiver.interrupt();
                    }
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeOutput();
        }
    }

    /**
     * Writes {@code records} records and the end-of-round marker, flushes, and returns what it
     * wrote. On the writer's thread.
     *
     * @throws IOException if writing failed (the round fails and the thread ends)
     */
    protected abstract Delivered sendRound(long records) throws IOException;

    /** Closes the writer's output; once, when the thread ends (or at stop if never started). */
    protected abstract void closeOutput();
}
