package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An {@link Error} on the IO thread (an {@link OutOfMemoryError}, say) is not a lost partition: it
 * ends the thread, is reported as the JVM reports an uncaught error, and fails every gate with an
 * {@link IllegalStateException} whose cause it is — so no consumer waits for ever and no producer
 * is rerun for it — and no gate opens on that worker any more.
 */
class IoThreadDeathTest {
    private static final ShuffleOptions OPTIONS =
            ShuffleOptions.builder()
                    .pageSizeBytes(4096)
                    .sortBufferPages(2)
                    .readBatchPages(2)
                    .gatePages(4)
                    .compression(Compression.NONE)
                    .totalPages(64)
                    .build();

    @TempDir Path dir;

    @Test
    void errorOnTheIoThread_failsWaitingGatesWithItAsCause_andIsReported() throws Exception {
        List<Throwable> reported = new CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> reported.add(e));
        OutOfMemoryError error = new OutOfMemoryError("injected on the IO thread");
        try (ShuffleWorker worker = new ShuffleWorker(OPTIONS, dir)) {
            HybridPartitionWriter writer =
                    ShuffleHarness.hybrid(
                            worker, ShuffleHarness.id(0), 2, PartitionKind.HYBRID_FULL);
            InputGate waiting = worker.openGate("waiting", List.of(writer.partition()), 0);
            writer.emit(ByteBuffer.wrap(new byte[] {1, 2, 3}), 1); // nothing for subpartition 0
            writer.flush();
            assertThat(waiting.poll()).as("no data for the waiting gate").isNull();

            worker.ioScheduler()
                    .execute(
                            () -> {
                                throw error;
                            });

            waiting.availability().get(30, TimeUnit.SECONDS); // woken, not left waiting
            assertThatThrownBy(waiting::poll)
                    .isInstanceOf(IllegalStateException.class)
                    .isNotInstanceOf(PartitionLostException.class)
                    .hasMessageContaining("'waiting'")
                    .hasMessageContaining("IO thread died")
                    .hasCause(error);
            ShuffleHarness.awaitUntil(() -> reported.contains(error), "the error to be reported");
            assertThatThrownBy(() -> worker.openGate("late", List.of(writer.partition()), 1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("IO thread died")
                    .hasCause(error);

            waiting.close();
            writer.close();
            writer.partition().release();
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previous);
        }
    }
}
