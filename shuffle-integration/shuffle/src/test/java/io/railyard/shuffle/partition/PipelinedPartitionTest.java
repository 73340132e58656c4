package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.HybridReader.Where;
import io.railyard.shuffle.partition.HybridRig.TestReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The in-memory bounded pipelined partition ({@link PartitionKind#PIPELINED}): its producer is told
 * to pause ({@link ResultPartitionWriter#roomWaitNanos}) once its bound of unconsumed pages is
 * reached and woken when its consumers make room (nothing goes to disk), pauses only briefly for a
 * consumer that has not attached, and stops pausing when the partition is released. The producer
 * runs on a thread of its own and pauses as a cooperative task would, between records, until its
 * waker runs or the pause it was given ends; the test's thread reads, as the IO thread would.
 */
class PipelinedPartitionTest {
    private static final int PAGE = 256;
    private static final int SORT_PAGES = 4;
    private static final int RECORDS = 400;
    private static final int RECORD_BYTES = 100;

    @TempDir Path dir;

    private HybridRig rig(int n) throws IOException {
        ShuffleOptions options =
                HybridRig.options(PAGE, SORT_PAGES).totalPages(512).hybridMemoryFraction(1).build();
        return new HybridRig(dir, options, n, PartitionKind.PIPELINED);
    }

    @Test
    void aProducerAtItsBound_waitsForItsConsumer_andNothingReachesDisk() throws Exception {
        try (HybridRig rig = rig(1)) {
            TestReader reader = rig.attach(0);
            CompletableFuture<Void> producer = produce(rig, 1);
            int bound = HybridPartitionWriter.pipelinedBoundPages(rig.options);
            awaitTrue(() -> rig.partition.backpressureWaits() > 0, "the producer waits");
            assertThat(rig.partition.residentPages()).isEqualTo(bound);
            assertThat(producer).as("a waiting producer").isNotDone();
            while (reader.readAll() != Where.END) {
                Thread.onSpinWait();
            }
            producer.get(30, TimeUnit.SECONDS);
            checkRecords(reader.records, 0, 1);
            reader.detach(true);
            HybridStats stats = rig.partition.stats();
            assertThat(stats.bytesWrittenToDisk()).as("written to disk").isZero();
            assertThat(stats.bytesSpilled()).as("spilled").isZero();
            assertThat(stats.peakResidentPages()).as("most pages held").isEqualTo(bound);
            assertThat(stats.bytesProduced())
                    .as("produced: many times the bound")
                    .isGreaterThan(10L * bound * PAGE);
            rig.partition.release();
            rig.checkAccounting();
            assertThat(rig.pool.pagesInUse()).isZero();
        }
    }

    @Test
    void aProducerWhoseConsumerHasNotAttached_waitsBriefly_thenGoesOn() throws Exception {
        try (HybridRig rig = rig(2)) {
            TestReader reader = rig.attach(0); // subpartition 1's consumer has no slot yet
            long start = System.nanoTime();
            produce(rig, 2).get(30, TimeUnit.SECONDS);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                    .as("waited for the absent consumer, ms")
                    .isGreaterThanOrEqualTo(HybridPartition.ABSENT_CONSUMER_WAIT_MILLIS);
            assertThat(rig.partition.residentPages())
                    .as("held beyond the bound: the consumer may come late")
                    .isGreaterThan(HybridPartitionWriter.pipelinedBoundPages(rig.options));
            TestReader late = rig.attach(1);
            assertThat(late.readAll()).isEqualTo(Where.END);
            assertThat(reader.readAll()).isEqualTo(Where.END);
            checkRecords(reader.records, 0, 2);
            checkRecords(late.records, 1, 2);
            assertThatThrownBy(() -> rig.attach(1))
                    .isInstanceOf(PartitionLostException.class)
                    .hasMessageContaining("subpartition 1 of this pipelined partition was read");
        }
    }

    @Test
    void releasingThePartition_endsTheProducersWait() throws Exception {
        try (HybridRig rig = rig(1)) {
            rig.attach(0); // attached, never reads
            CompletableFuture<Void> producer = produce(rig, 1);
            awaitTrue(() -> rig.partition.backpressureWaits() > 0, "the producer waits");
            rig.partition.release();
            assertThatThrownBy(() -> producer.get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasRootCauseInstanceOf(PartitionLostException.class)
                    .hasMessageContaining("released");
            rig.writer.close();
            assertThat(rig.owner.pagesInUse()).as("pages of a released partition").isZero();
        }
    }

    /** Writes {@link #RECORDS} records round robin over {@code n} subpartitions, then finishes. */
    private static CompletableFuture<Void> produce(HybridRig rig, int n) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread thread =
                new Thread(
                        () -> {
                            try {
                                Semaphore woken = new Semaphore(0);
                                Runnable waker = woken::release;
                                for (int i = 0; i < RECORDS; i++) {
                                    for (long pause = rig.writer.roomWaitNanos(waker);
                                            pause > 0;
                                            pause = rig.writer.roomWaitNanos(waker)) {
                                        var unused =
                                                woken.tryAcquire(
                                                        Math.min(
                                                                pause,
                                                                TimeUnit.SECONDS.toNanos(30)),
                                                        TimeUnit.NANOSECONDS);
                                    }
                                    rig.writer.emit(ByteBuffer.wrap(record(i)), i % n);
                                }
                                rig.writer.finish();
                                done.complete(null);
                            } catch (Throwable e) {
                                done.completeExceptionally(e);
                            }
                        },
                        "pipelined-producer");
        thread.setDaemon(true);
        thread.start();
        return done;
    }

    private static byte[] record(int id) {
        byte[] bytes = new byte[RECORD_BYTES];
        for (int b = 0; b < bytes.length; b++) {
            bytes[b] = (byte) (id * 31 + b);
        }
        return bytes;
    }

    /** {@code records} are exactly those of subpartition {@code s} of {@code n}, in order. */
    private static void checkRecords(List<byte[]> records, int s, int n) {
        int expected = (RECORDS - s + n - 1) / n;
        assertThat(records).as("records of subpartition %s", s).hasSize(expected);
        for (int k = 0; k < records.size(); k++) {
            assertThat(records.get(k)).as("record %s of %s", k, s).isEqualTo(record(s + k * n));
        }
    }

    private static void awaitTrue(BooleanSupplier condition, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("in time: %s", what).isLessThan(deadline);
            Thread.sleep(1);
        }
    }
}
