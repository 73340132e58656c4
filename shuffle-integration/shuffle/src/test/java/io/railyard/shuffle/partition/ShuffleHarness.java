package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.zip.CRC32C;

/** Random record streams, writers and a draining reader shared by the shuffle tests. */
final class ShuffleHarness {

    /** A record sink that copies each record into {@code out}, the list of its channel. */
    static RecordDecoder.RecordSink copyInto(List<List<byte[]>> out) {
        return (channel, record) -> {
            byte[] bytes = new byte[record.remaining()];
            record.get(bytes);
            out.get(channel).add(bytes);
        };
    }

    /** A record sink that copies each record, of whatever channel, into {@code out}. */
    static RecordDecoder.RecordSink copyInto(Collection<byte[]> out) {
        return (channel, record) -> {
            byte[] bytes = new byte[record.remaining()];
            record.get(bytes);
            out.add(bytes);
        };
    }

    /** The kinds readable while written, in declaration order. */
    static final Set<PartitionKind> HYBRID_KINDS =
            Collections.unmodifiableSet(
                    EnumSet.of(
                            PartitionKind.HYBRID_FULL,
                            PartitionKind.HYBRID_SELECTIVE,
                            PartitionKind.PIPELINED));

    /**
     * Every partition kind of the shuffle matrix (ARCHITECTURE.md, Reliability): the blocking
     * kinds, readable once their producer finished, and the hybrid kinds that spill, readable while
     * produced (pipelined needs a thread per side: {@link SlowConsumerUnderSkewTest}).
     */
    static final List<PartitionKind> MATRIX_KINDS =
            List.of(
                    PartitionKind.HASH,
                    PartitionKind.SORT,
                    PartitionKind.HYBRID_FULL,
                    PartitionKind.HYBRID_SELECTIVE);

    /** Partition {@code partition}'s first attempt: how the tests name their partitions. */
    static PartitionId id(int partition) {
        return new PartitionId(partition, 0);
    }

    /** A writer of a blocking {@code kind} ({@code SORT} or {@code HASH}). */
    static PartitionWriter blocking(ShuffleWorker worker, PartitionKind kind, int partition, int n)
            throws IOException {
        return (PartitionWriter) worker.createPartition(id(partition), n, kind);
    }

    /** A writer of a {@code kind} readable while written; its partition is readable at once. */
    static HybridPartitionWriter hybrid(
            ShuffleWorker worker, PartitionId id, int n, PartitionKind kind) throws IOException {
        return (HybridPartitionWriter) worker.createPartition(id, n, kind);
    }

    /**
     * Per subpartition: records, bytes and an order-independent checksum (the sum of a 64-bit hash
     * of each record), as a producer wrote them or a consumer read them (ARCHITECTURE.md,
     * Reliability: the end-to-end count/checksum check).
     */
    static final class Totals {
        private final long[] records;
        private final long[] bytes;
        private final long[] checksum;

        Totals(int numSubpartitions) {
            records = new long[numSubpartitions];
            bytes = new long[numSubpartitions];
            checksum = new long[numSubpartitions];
        }

        /** The totals of what one consumer of subpartition {@code s} read. */
        static Totals read(int numSubpartitions, int s, List<byte[]> records) {
            Totals totals = new Totals(numSubpartitions);
            for (byte[] record : records) {
                totals.add(s, record);
            }
            return totals;
        }

        /** Counts {@code record} for subpartition {@code s}. */
        void add(int s, byte[] record) {
            records[s]++;
            bytes[s] += record.length;
            checksum[s] += hash(record);
        }

        /** Counts {@code record} for every subpartition (a broadcast). */
        void addToAll(byte[] record) {
            for (int s = 0; s < records.length; s++) {
                add(s, record);
            }
        }

        /** Asserts that subpartition {@code s} of this and of {@code read} are equal. */
        void assertSameAs(Totals read, int s, String what) {
            assertThat(read.records[s]).as("%s: records", what).isEqualTo(records[s]);
            assertThat(read.bytes[s]).as("%s: bytes", what).isEqualTo(bytes[s]);
            assertThat(read.checksum[s]).as("%s: checksum", what).isEqualTo(checksum[s]);
        }

        private static long hash(byte[] record) {
            CRC32C crc = new CRC32C();
            crc.update(record);
            long h = (crc.getValue() << 32) ^ record.length;
            h ^= h >>> 33; // a 64-bit finaliser (MurmurHash3's), so equal CRCs of other lengths
            h *= 0xff51afd7ed558ccdL; // and nearby values spread over all bits of the sum
            h ^= h >>> 33;
            h *= 0xc4ceb9fe1a85ec53L;
            return h ^ (h >>> 33);
        }
    }

    private ShuffleHarness() {}

    /** One producer's stream: per record its target (-1 = broadcast) and bytes. */
    static final class Stream {
        private final int[] targets;
        private final byte[][] records;

        Stream(int[] targets, byte[][] records) {
            this.targets = targets;
            this.records = records;
        }

        int[] targets() {
            return targets;
        }

        byte[][] records() {
            return records;
        }

        /** What subpartition {@code s} must read, in order. */
        List<byte[]> expected(int s) {
            List<byte[]> out = new ArrayList<>();
            for (int i = 0; i < targets.length; i++) {
                if (targets[i] == s || targets[i] == -1) {
                    out.add(records[i]);
                }
            }
            return out;
        }
    }

    /**
     * A random stream: sizes 0 B to several pages, half the records to subpartition 0 when skewed,
     * broadcast mixed in, compressible or random bytes.
     */
    static Stream randomStream(SplittableRandom random, int n, int count, int pageSize) {
        int[] targets = new int[count];
        byte[][] records = new byte[count][];
        boolean skewed = random.nextBoolean();
        boolean compressible = random.nextBoolean();
        for (int i = 0; i < count; i++) {
            int kind = random.nextInt(20);
            targets[i] = kind == 0 ? -1 : skewed && random.nextBoolean() ? 0 : random.nextInt(n);
            int size =
                    switch (random.nextInt(8)) {
                        case 0 -> 0;
                        case 1 -> random.nextInt(pageSize * 3 + 1);
                        case 2 -> pageSize - random.nextInt(40);
                        default -> random.nextInt(64);
                    };
            byte[] bytes = new byte[size];
            for (int b = 0; b < size; b++) {
                bytes[b] = compressible ? (byte) ('a' + (b % 7)) : (byte) random.nextInt();
            }
            records[i] = bytes;
        }
        return new Stream(targets, records);
    }

    static BlockingPartition write(
            ShuffleWorker worker, PartitionKind kind, int partition, int n, Stream stream)
            throws IOException {
        return write(blocking(worker, kind, partition, n), stream);
    }

    /** Writes {@code stream} through {@code created} (a new writer), finishes and closes it. */
    static BlockingPartition write(PartitionWriter created, Stream stream) throws IOException {
        try (PartitionWriter writer = created) {
            for (int i = 0; i < stream.targets().length; i++) {
                ByteBuffer record = ByteBuffer.wrap(stream.records()[i]);
                if (stream.targets()[i] < 0) {
                    writer.broadcast(record);
                } else {
                    writer.emit(record, stream.targets()[i]);
                }
                assertThat(record.hasRemaining()).isFalse();
            }
            return writer.finish();
        }
    }

    /**
     * Writes {@code stream} through {@code writer} and finishes it, counting each record in {@code
     * totals} as it is written; a hybrid writer flushes after every {@code flushEvery} records (0:
     * never), so consumers attached meanwhile read while it produces.
     */
    static ResultPartition writeAll(
            ResultPartitionWriter writer, Stream stream, int flushEvery, Totals totals)
            throws IOException {
        try (writer) {
            for (int i = 0; i < stream.targets().length; i++) {
                byte[] bytes = stream.records()[i];
                ByteBuffer record = ByteBuffer.wrap(bytes);
                int target = stream.targets()[i];
                if (target < 0) {
                    writer.broadcast(record);
                    totals.addToAll(bytes);
                } else {
                    writer.emit(record, target);
                    totals.add(target, bytes);
                }
                assertThat(record.hasRemaining()).isFalse();
                if (flushEvery > 0
                        && i % flushEvery == flushEvery - 1
                        && writer instanceof HybridPartitionWriter hybrid) {
                    hybrid.flush();
                }
            }
            return writer.finish();
        }
    }

    /**
     * Parks {@code worker}'s IO thread (a task that waits) and returns the latch that lets it go:
     * what the caller does meanwhile happens before the IO thread serves anything. Count it down in
     * a finally block.
     */
    static CountDownLatch parkIoThread(ShuffleWorker worker) throws InterruptedException {
        CountDownLatch parked = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        worker.ioScheduler()
                .execute(
                        () -> {
                            parked.countDown();
                            try {
                                resume.await(30, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        });
        assertThat(parked.await(30, TimeUnit.SECONDS)).as("IO thread parked").isTrue();
        return resume;
    }

    /** Reads a whole gate, recycling each buffer at once; records per channel. */
    static List<List<byte[]>> drain(InputGate gate) throws Exception {
        List<List<byte[]>> out = new ArrayList<>();
        for (int c = 0; c < gate.numChannels(); c++) {
            out.add(new ArrayList<>());
        }
        RecordDecoder decoder = new RecordDecoder(gate.numChannels());
        while (!gate.isFinished()) {
            InputGate.Buffer buffer = gate.poll();
            if (buffer == null) {
                try {
                    gate.availability().get(10, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    throw new AssertionError(
                            "gate '"
                                    + gate.name()
                                    + "': neither a buffer nor the end for 10 s (a hang?); it"
                                    + " holds "
                                    + gate.pagesInUse()
                                    + " pages: "
                                    + gate,
                            e);
                }
                continue;
            }
            try {
                decoder.decode(buffer.channel(), buffer.data(), copyInto(out));
            } finally {
                buffer.recycle();
            }
        }
        for (int c = 0; c < gate.numChannels(); c++) {
            assertThat(decoder.atRecordBoundary(c)).as("channel %s ends on a record", c).isTrue();
        }
        return out;
    }

    /**
     * Waits until {@code condition} holds; a watchdog, not a timer: fails only when it has not come
     * true for 5 s (a hang), whatever the machine's speed otherwise.
     */
    static void awaitUntil(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("gave up after 5 s waiting for " + what);
            }
            LockSupport.parkNanos(100_000);
        }
    }

    static void assertRecords(List<byte[]> actual, List<byte[]> expected, String what) {
        assertThat(actual.size()).as("%s: record count", what).isEqualTo(expected.size());
        for (int i = 0; i < expected.size(); i++) {
            if (!Arrays.equals(actual.get(i), expected.get(i))) {
                throw new AssertionError(
                        what
                                + ": record "
                                + i
                                + " differs ("
                                + actual.get(i).length
                                + " vs "
                                + expected.get(i).length
                                + " bytes)");
            }
        }
    }
}
