package io.railyard.benchmarks.procedures;

import io.railyard.shuffle.partition.RecordDecoder;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Counts records, their bytes and the sum of their 64-bit hashes ({@link #hash}): what a consumer
 * read, or what a producer wrote, as a {@link Delivered}. The sum does not depend on the order the
 * records come in, so consumers that read the same records in any interleaving agree with the
 * producers that wrote them.
 *
 * <p>Design notes. The hash reads a record in two interleaved 8-byte lanes (16 bytes per step, each
 * lane an xxHash64 round), folds the lanes, the length and the tail bytes, and ends with xxHash64's
 * avalanche: not xxHash64 itself, but the same mixing, so every input bit reaches every output bit.
 * Words are read little-endian through a {@link VarHandle} whatever the buffer's own byte order, so
 * a heap array, a direct page and a Flink buffer give the same hash. A sum of such hashes detects a
 * lost, duplicated, truncated or corrupted record, or a shifted record boundary, except with
 * probability about 2^-64.
 *
 * <p>Not thread-safe: one per consumer (or producer). No allocation.
 */
public final class RecordTally implements RecordDecoder.RecordSink {
    private static final VarHandle LONGS =
            MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    // xxHash64's primes.
    private static final long P1 = 0x9E3779B185EBCA87L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P3 = 0x165667B19E3779F9L;
    private static final long P4 = 0x85EBCA77C2B2AE63L;
    private static final long P5 = 0x27D4EB2F165667C5L;

    /** xxHash64's first accumulator for seed 0: P1 + P2, wrapping. */
    private static final long LANE_A = 0x60EA27EEADC0B5D6L;

    private long records;
    private long bytes;
    private long checksum;

    /** An empty tally. */
    public RecordTally() {}

    /**
     * Counts {@code record[position, limit)}, leaving its position and limit as they were.
     * O(length); no allocation.
     */
    public void add(ByteBuffer record) {
        records++;
        bytes += record.remaining();
        checksum += hash(record);
    }

    /** {@link #add}: a {@link RecordDecoder}'s records counted as they are decoded. */
    @Override
    public void accept(int channel, ByteBuffer record) {
        add(record);
    }

    /** Counts {@code copies} records equal to {@code record[position, limit)}. O(length). */
    void addCopies(long copies, ByteBuffer record) {
        records += copies;
        bytes += copies * record.remaining();
        checksum += copies * hash(record);
    }

    /** What was counted so far. O(1); allocates the result. */
    public Delivered delivered() {
        return new Delivered(records, bytes, checksum);
    }

    /**
     * The 64-bit hash of {@code record[position, limit)} (see the class notes), leaving its
     * position and limit as they were. O(length); no allocation.
     */
    public static long hash(ByteBuffer record) {
        int at = record.position();
        int end = record.limit();
        long a = LANE_A;
        long b = P2;
        for (; end - at >= 16; at += 16) {
            a = round(a, (long) LONGS.get(record, at));
            b = round(b, (long) LONGS.get(record, at + 8));
        }
        long h = Long.rotateLeft(a, 1) + Long.rotateLeft(b, 7) + P5 + record.remaining();
        if (end - at >= 8) {
            h ^= round(0, (long) LONGS.get(record, at));
            h = Long.rotateLeft(h, 27) * P1 + P4;
            at += 8;
        }
        for (; at < end; at++) {
            h ^= (record.get(at) & 0xFFL) * P5;
            h = Long.rotateLeft(h, 11) * P1;
        }
        return avalanche(h);
    }

    private static long round(long accumulator, long input) {
        return Long.rotateLeft(accumulator + input * P2, 31) * P1;
    }

    private static long avalanche(long h) {
        h ^= h >>> 33;
        h *= P2;
        h ^= h >>> 29;
        h *= P3;
        return h ^ (h >>> 32);
    }
}
