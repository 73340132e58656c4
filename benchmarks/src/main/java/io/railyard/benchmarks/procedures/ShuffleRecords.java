package io.railyard.benchmarks.procedures;

import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * The records producers of the shuffle measurement write, whatever system they write them to
 * (Railyard's partition writers, or Flink's in the comparison): which bytes, how many, to which
 * subpartition, and what a producer wrote as a {@link Delivered}. Stateless.
 */
public final class ShuffleRecords {
    /** Where a producer's records go: a partition writer's emit. */
    @FunctionalInterface
    public interface Target {
        /**
         * Writes {@code record[position, limit)} to {@code subpartition}; may consume the buffer.
         */
        void emit(ByteBuffer record, int subpartition) throws IOException;
    }

    /** Distinct records a producer cycles through. */
    private static final int SOURCE_RECORDS = 64;

    /** Records a paced producer emits between looks at the clock. */
    private static final int PACE_RECORDS = 256;

    private ShuffleRecords() {}

    /** The bytes producers slice their records from: 64 records of random bytes. Allocates. */
    public static byte[] source(int recordBytes) {
        byte[] source = new byte[recordBytes * SOURCE_RECORDS];
        new SplittableRandom(7).nextBytes(source);
        return source;
    }

    /** Producer {@code producer}'s share of {@code bytes}: an equal part, the rest to the first. */
    public static long share(long bytes, int parallelism, int producer) {
        return bytes / parallelism + (producer < bytes % parallelism ? 1 : 0);
    }

    /** The name of producer {@code producer} ({@code p} and the number), which sets its targets. */
    public static String producerName(int producer) {
        return "p" + producer;
    }

    /** The partition producer {@code producer} writes: its number, first attempt. */
    public static PartitionId partitionOf(int producer) {
        return new PartitionId(producer, 0);
    }

    /**
     * Emits {@code share} bytes of {@code recordBytes}-byte records sliced from {@code source} (the
     * last one shorter if need be) to {@code target}, round-robin over {@code numSubpartitions}
     * subpartitions from one derived from {@code name}; with {@code pace > 0}, no faster than
     * {@code pace} bytes per second (checked every {@value #PACE_RECORDS} records, parking until
     * the schedule catches up). Returns what it wrote: a full record is counted by its slice of
     * {@code source} and hashed once per slice at the end, so the check costs the producer nothing
     * per record. O(share); no allocation per record.
     */
    public static Delivered write(
            Target target,
            String name,
            int numSubpartitions,
            long share,
            int recordBytes,
            byte[] source,
            long pace)
            throws IOException {
        ByteBuffer record = ByteBuffer.wrap(source);
        long[] copies = new long[SOURCE_RECORDS];
        RecordTally written = new RecordTally();
        int subpartition = name.hashCode() & 0xFFFF;
        int slice = 0;
        long start = System.nanoTime();
        for (long left = share; left > 0; left -= recordBytes) {
            if (pace > 0 && slice % PACE_RECORDS == PACE_RECORDS - 1) {
                awaitSchedule(start, share - left, pace);
            }
            int length = (int) Math.min(recordBytes, left);
            int index = slice++ & (SOURCE_RECORDS - 1);
            int offset = index * recordBytes;
            record.limit(offset + length).position(offset);
            if (length == recordBytes) {
                copies[index]++;
            } else {
                written.add(record);
            }
            target.emit(record, subpartition++ % numSubpartitions);
        }
        for (int index = 0; index < SOURCE_RECORDS; index++) {
            int offset = index * recordBytes;
            record.limit(offset + recordBytes).position(offset);
            written.addCopies(copies[index], record);
        }
        return written.delivered();
    }

    /**
     * Parks until {@code emitted} bytes are due at {@code pace} bytes per second from {@code
     * start}.
     */
    private static void awaitSchedule(long start, long emitted, long pace)
            throws InterruptedIOException {
        long due = start + (long) (emitted * 1e9 / pace);
        for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
            LockSupport.parkNanos(wait);
            if (Thread.interrupted()) {
                throw new InterruptedIOException("interrupted while pacing a producer");
            }
        }
    }
}
