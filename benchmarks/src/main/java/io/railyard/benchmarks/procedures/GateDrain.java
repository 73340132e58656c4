package io.railyard.benchmarks.procedures;

import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.ResultPartition;
import io.railyard.shuffle.partition.ShuffleWorker;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * One consumer of a hybrid run: drains its input gate on a shared executor without ever blocking a
 * thread — it decodes buffers while the gate has some and, when it has none, resumes on the gate's
 * availability — and counts the records it decodes ({@link RecordTally}). So a few threads serve
 * many open gates, each as soon as it has data.
 *
 * <p>Threading: one step runs at a time, on any thread of the executor: the first is submitted by
 * {@link #start}, each later one by the completion of the availability the previous step waited
 * for, which orders them. The gate is used as its contract asks, by one consumer at a time; {@link
 * #abort} (clean-up) may be called from any thread. The listener hears the end exactly once, on the
 * thread that ended it.
 */
final class GateDrain {
    /** Hears how a drain ended. */
    @FunctionalInterface
    interface Listener {
        /** {@code drain} ended: its gate finished ({@code failure} null) or failed. */
        void ended(GateDrain drain, @Nullable Throwable failure);
    }

    private final InputGate gate;
    private final RecordDecoder decoder;
    private final Executor executor;
    private final Listener listener;
    private final RecordTally tally = new RecordTally();
    private final AtomicBoolean ended = new AtomicBoolean();
    private volatile @Nullable Delivered read;
    private volatile long endNanos;
    private volatile boolean aborted;

    private GateDrain(InputGate gate, Executor executor, Listener listener) {
        this.gate = gate;
        this.decoder = new RecordDecoder(gate.numChannels());
        this.executor = executor;
        this.listener = listener;
    }

    /**
     * Opens consumer {@code subpartition}'s gate on {@code partitions} (named {@code c} and the
     * number) and starts draining it on {@code executor}.
     */
    static GateDrain start(
            ShuffleWorker worker,
            List<? extends ResultPartition> partitions,
            int subpartition,
            Executor executor,
            Listener listener) {
        InputGate gate = worker.openGate("c" + subpartition, partitions, subpartition);
        GateDrain drain = new GateDrain(gate, executor, listener);
        executor.execute(drain::step);
        return drain;
    }

    /**
     * What the consumer read, once the gate finished.
     *
     * @throws IllegalStateException if the gate has not finished
     */
    Delivered read() {
        Delivered result = read;
        if (result == null) {
            throw new IllegalStateException("consumer " + gate.name() + " has not finished");
        }
        return result;
    }

    /** {@link System#nanoTime()} when the gate finished; 0 before. */
    long endNanos() {
        return endNanos;
    }

    /**
     * Stops: closes the gate (its queued buffers go back; a buffer a step holds goes back when the
     * step ends) and, if the drain had not ended, tells the listener it failed. Idempotent.
     */
    void abort() {
        aborted = true;
        gate.close();
        end(new CancellationException("consumer aborted"));
    }

    private void step() {
        try {
            while (!aborted) {
                if (gate.isFinished()) {
                    gate.close();
                    read = tally.delivered();
                    endNanos = System.nanoTime();
                    end(null);
                    return;
                }
                InputGate.Buffer buffer = gate.poll();
                if (buffer == null) {
                    resumeWhenAvailable();
                    return;
                }
                try {
                    decoder.decode(buffer.channel(), buffer.data(), tally);
                } finally {
                    buffer.recycle();
                }
            }
        } catch (IOException | RuntimeException e) {
            gate.close();
            end(e);
        }
    }

    // The next step reports its own outcome; the future only fails if the executor was shut down,
    // which happens after abort() has ended this drain.
    @SuppressWarnings("FutureReturnValueIgnored")
    private void resumeWhenAvailable() {
        gate.availability().thenRunAsync(this::step, executor);
    }

    private void end(@Nullable Throwable failure) {
        if (ended.compareAndSet(false, true)) {
            listener.ended(this, failure);
        }
    }
}
