package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Interleavings of a hybrid partition's threads that {@link HybridStressTest} reaches only by
 * chance, forced here: the test holds a monitor another thread needs next (a gate's, or the
 * partition's, in the lock order of the io.railyard.shuffle package documentation), waits until
 * that thread is blocked on it, acts, and lets go (Reliability invariant 5: liveness). Each wait
 * for a thread to arrive is bounded by a watchdog ({@link ShuffleHarness#awaitUntil}); no time is
 * measured.
 */
class HybridInterleavingTest {
    private static final String IO_THREAD = "railyard-shuffle-io";

    @TempDir Path dir;

    /**
     * Pages of 1 KiB; room for the IO scheduler, {@code writers} writers (3 pages each) and {@code
     * gates} gates of 8 pages, so a region can borrow what the gates are not yet promised.
     */
    private static ShuffleOptions options(int writers, int gates) {
        ShuffleOptions probe =
                ShuffleOptions.builder()
                        .pageSizeBytes(1024)
                        .sortBufferPages(2)
                        .readBatchPages(2)
                        .gatePages(8)
                        .compression(Compression.NONE)
                        .hybridMemoryFraction(1)
                        .build();
        return probe.toBuilder()
                .totalPages(
                        IoScheduler.pagesNeeded(probe)
                                + writers * HybridPartitionWriter.pagesNeeded(probe)
                                + gates * probe.gatePages())
                .build();
    }

    /**
     * A region is published just as the gate has read every entry of its feed and parks there (its
     * last look at the feed found nothing, and it has not parked yet): the gate must read on, or
     * its consumer waits forever for a wake-up that came before it parked. Forced by running the
     * publication on the consumer's thread at that very point.
     */
    @ParameterizedTest
    @EnumSource(
            value = PartitionKind.class,
            names = {"HYBRID_FULL", "HYBRID_SELECTIVE", "PIPELINED"})
    void regionPublishedAsTheGateParks_isReadWithoutAWakeUp(PartitionKind mode) throws Exception {
        byte[] record = bytes(300, 7);
        ShuffleOptions options = options(1, 1);
        // Pages to borrow: the region stays in memory, where the gate reads it on its own thread.
        options = options.toBuilder().totalPages(options.totalPages() + 4).build();
        try (ShuffleWorker worker = new ShuffleWorker(options, dir)) {
            HybridPartitionWriter writer =
                    ShuffleHarness.hybrid(worker, ShuffleHarness.id(0), 1, mode);
            HybridPartition partition = writer.partition();
            LocalInputGate gate = (LocalInputGate) worker.openGate("c", List.of(partition), 0);
            AtomicInteger parks = new AtomicInteger();
            gate.beforePark(
                    () -> {
                        if (parks.getAndIncrement() == 0) {
                            try {
                                writer.emit(ByteBuffer.wrap(record), 0);
                                writer.flush(); // published between the last look and the park
                            } catch (IOException e) {
                                throw new UncheckedIOException(e);
                            }
                        }
                    });
            InputGate.Buffer first = gate.poll();
            assertThat(first)
                    .as("the region published as it parked, read at once: %s", gate)
                    .isNotNull();
            first.recycle();
            assertThat(parks).as("parks before the region was read").hasValue(1);
            gate.beforePark(null);
            writer.finish();
            try (gate) {
                ShuffleHarness.drain(gate);
            }
            assertReleasedLeavesNothing(worker, partition);
        }
    }

    /**
     * The pool asks a full-mode partition for its borrowed pages back (a gate pledges pages the
     * writer borrowed) while the region holding them is still written through: it cannot be dropped
     * yet, but must be as soon as its write ends — else the gates, whose promised pages it holds,
     * never get a page, even after the producer finished.
     */
    @Test
    void revocationDuringAWriteThrough_isHonouredWhenTheWriteEnds() throws Exception {
        byte[] record = bytes(6000, 3); // one region of 7 borrowed pages, more than the writer's 3
        Set<Thread> others = ioThreads();
        try (ShuffleWorker worker = new ShuffleWorker(options(1, 2), dir)) {
            Thread io = theNewIoThread(others);
            HybridPartitionWriter writer =
                    ShuffleHarness.hybrid(
                            worker, ShuffleHarness.id(0), 2, PartitionKind.HYBRID_FULL);
            HybridPartition partition = writer.partition();
            InputGate first = worker.openGate("c0", List.of(partition), 0);
            assertThat(first.poll()).as("nothing yet: the gate parks on its feed").isNull();
            awaitAttachedAndIoIdle(io, partition, 1);
            InputGate second;
            Producer producer;
            synchronized (first) {
                // The producer publishes the region, then wakes the first gate, parked on its feed:
                // it blocks on this gate, with the region published and its write-through not yet
                // started.
                producer = Producer.startWriting(writer, record);
                awaitBlocked(producer, "LocalInputGate", "feedAdvanced");
                assertThat(partition.residentPages()).isGreaterThan(3);
                second = worker.openGate("c1", List.of(partition), 1); // the pool asks back
                // Attached: the spill the ask queued ran before (queued tasks run first).
                ShuffleHarness.awaitUntil(
                        () -> partition.attachedReaders() == 2, "the second reader");
            }
            producer.joinChecked(); // writes the region through and finishes
            for (InputGate gate : List.of(first, second)) {
                try (gate) {
                    ShuffleHarness.assertRecords(
                            ShuffleHarness.drain(gate).get(0), List.of(record), gate.name());
                }
            }
            assertReleasedLeavesNothing(worker, partition);
        }
    }

    private void assertReleasedLeavesNothing(ShuffleWorker worker, HybridPartition partition)
            throws Exception {
        partition.checkInvariants();
        partition.release();
        assertThat(worker.bufferPool().pagesInUse())
                .isEqualTo(IoScheduler.pagesNeeded(worker.options()));
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    private static byte[] bytes(int size, int seed) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) (i * 31 + seed);
        }
        return bytes;
    }

    /** The worker's IO threads alive now (other tests' workers may have left theirs). */
    private static Set<Thread> ioThreads() {
        Set<Thread> threads = new HashSet<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().equals(IO_THREAD) && thread.isAlive()) {
                threads.add(thread);
            }
        }
        return threads;
    }

    /** The IO thread of the worker created since {@code others} were alive. */
    private static Thread theNewIoThread(Set<Thread> others) {
        Set<Thread> mine = ioThreads();
        mine.removeAll(others);
        assertThat(mine).as("the new worker's IO thread").hasSize(1);
        return mine.iterator().next();
    }

    /** Waits until the partition has {@code readers} readers and the IO thread waits for work. */
    private static void awaitAttachedAndIoIdle(Thread io, HybridPartition partition, int readers) {
        ShuffleHarness.awaitUntil(
                () ->
                        partition.attachedReaders() == readers
                                && isIn(io, Thread.State.WAITING, "IoScheduler", "run"),
                readers + " readers attached and the IO thread idle");
    }

    private static void awaitBlocked(Thread thread, String type, String method) {
        ShuffleHarness.awaitUntil(
                () -> isIn(thread, Thread.State.BLOCKED, type, method),
                thread.getName() + " blocked in " + type + "." + method);
    }

    /** Whether {@code thread} is in {@code state} with {@code type.method} on its stack. */
    private static boolean isIn(Thread thread, Thread.State state, String type, String method) {
        if (thread.getState() != state) {
            return false;
        }
        return Arrays.stream(thread.getStackTrace())
                .anyMatch(
                        frame ->
                                frame.getClassName().endsWith("." + type)
                                        && frame.getMethodName().equals(method));
    }

    /** A producer thread writing one broadcast record and finishing. */
    private static final class Producer extends Thread {
        private final HybridPartitionWriter writer;
        private final byte[] record;
        private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

        private Producer(HybridPartitionWriter writer, byte[] record) {
            super("producer");
            setDaemon(true);
            this.writer = writer;
            this.record = record;
        }

        static Producer startWriting(HybridPartitionWriter writer, byte[] record) {
            Producer producer = new Producer(writer, record);
            producer.start();
            return producer;
        }

        @Override
        public void run() {
            try {
                writer.broadcast(ByteBuffer.wrap(record));
                writer.finish();
            } catch (Throwable e) {
                failure.set(e);
            }
        }

        void joinChecked() throws InterruptedException {
            join();
            Throwable e = failure.get();
            if (e != null) {
                throw new AssertionError("the producer failed", e);
            }
        }
    }
}
