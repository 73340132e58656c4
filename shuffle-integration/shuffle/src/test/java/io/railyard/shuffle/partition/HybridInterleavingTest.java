package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.util.concurrent.Uninterruptibles;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
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
     * A region arrives for a reader that waits for data just as the IO thread ends that channel's
     * turn (it found no data, and has not yet handed the turn back to the gate): the gate must
     * remember the arrival and give the channel another turn, or the reader waits forever.
     */
    @ParameterizedTest
    @EnumSource(
            value = PartitionKind.class,
            names = {"HYBRID_FULL", "HYBRID_SELECTIVE", "PIPELINED"})
    void regionArrivesAsTheIoThreadEndsTheTurn_theChannelIsServedAgain(PartitionKind mode)
            throws Exception {
        byte[] record = bytes(300, 7);
        Set<Thread> others = ioThreads();
        try (ShuffleWorker worker = new ShuffleWorker(options(2, 1), dir)) {
            Thread io = theNewIoThread(others);
            HybridPartitionWriter writer =
                    ShuffleHarness.hybrid(worker, ShuffleHarness.id(0), 1, mode);
            HybridPartition partition = writer.partition();
            HybridPartitionWriter parkingWriter =
                    ShuffleHarness.hybrid(worker, ShuffleHarness.id(1), 1, mode);
            HybridPartition parking = parkingWriter.partition();
            InputGate gate;
            // 1. Park the IO thread in a spill of another partition, whose lock a holder keeps.
            try (Holder park = new Holder(parking, () -> parking.requestSpill(1))) {
                awaitIoThread(io, Thread.State.BLOCKED, "HybridPartition", "spillRequested");
                // 2. Open the gate meanwhile, and hold the partition's lock: the IO thread's next
                //    round attaches the reader and waits for the lock there.
                gate = worker.openGate("c", List.of(partition), 0);
                try (Holder holder = new Holder(partition, () -> {})) {
                    park.release();
                    awaitIoThread(io, Thread.State.BLOCKED, "HybridPartition", "attach");
                    // 3. Hold the gate: the IO thread finds no data and ends the turn, but waits
                    //    for the gate to hand it back; a region arrives just then.
                    synchronized (gate) {
                        holder.release();
                        awaitIoThread(io, Thread.State.BLOCKED, "LocalInputGate", "served");
                        writer.emit(ByteBuffer.wrap(record), 0);
                        writer.flush(); // wakes the reader while its channel is in service
                    }
                }
            }
            writer.finish();
            parkingWriter.close();
            parking.release();
            try (gate) {
                ShuffleHarness.assertRecords(
                        ShuffleHarness.drain(gate).get(0), List.of(record), "reader");
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
            awaitAttachedAndIoIdle(io, partition, 1);
            InputGate second;
            Producer producer;
            synchronized (first) {
                // The producer publishes the region, then wakes the first reader: it blocks on
                // this gate, with the region published and its write-through not yet started.
                producer = Producer.startWriting(writer, record);
                awaitBlocked(producer, "LocalInputGate", "dataAvailable");
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

    private static void awaitIoThread(Thread io, Thread.State state, String type, String method) {
        ShuffleHarness.awaitUntil(
                () -> isIn(io, state, type, method),
                "the IO thread " + state + " in " + type + "." + method);
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

    /** A thread that holds a monitor until released (or closed). */
    private static final class Holder implements AutoCloseable {
        private final CountDownLatch held = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);
        private final Thread thread;

        /** Holds {@code monitor}, runs {@code whileHeld} under it, and returns once it holds it. */
        Holder(Object monitor, Runnable whileHeld) throws InterruptedException {
            thread =
                    new Thread(
                            () -> {
                                synchronized (monitor) {
                                    whileHeld.run();
                                    held.countDown();
                                    awaitQuietly(release);
                                }
                            },
                            "holder");
            thread.setDaemon(true);
            thread.start();
            held.await();
        }

        void release() {
            release.countDown();
        }

        @Override
        public void close() {
            release.countDown();
            Uninterruptibles.joinUninterruptibly(thread);
        }

        private static void awaitQuietly(CountDownLatch latch) {
            boolean interrupted = false;
            while (true) {
                try {
                    latch.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
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
