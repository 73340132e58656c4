package io.railyard.shuffle.local;

import java.nio.ByteBuffer;

/**
 * A count of records and an order-independent checksum of their bytes (a sum of 64-bit hashes), so
 * two tallies are equal when the same multiset of records passed, in any order. Immutable; {@link
 * #plus} combines.
 *
 * @param records how many records
 * @param checksum the sum of their hashes
 */
public record Tally(long records, long checksum) {
    /** Nothing counted. */
    public static final Tally ZERO = new Tally(0, 0);

    /** This tally and {@code other} together. */
    public Tally plus(Tally other) {
        return new Tally(records + other.records, checksum + other.checksum);
    }

    /** The hash of {@code record[position, limit)} (not consumed): FNV-1a then an avalanche. */
    public static long hash(ByteBuffer record) {
        long h = 0xcbf29ce484222325L;
        for (int i = record.position(); i < record.limit(); i++) {
            h = (h ^ (record.get(i) & 0xFF)) * 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return h;
    }

    /** A mutable tally for one thread. */
    public static final class Counter {
        private long records;
        private long checksum;

        /** Counts {@code record[position, limit)} (not consumed). */
        public void add(ByteBuffer record) {
            records++;
            checksum += hash(record);
        }

        /** What was counted. */
        public Tally tally() {
            return new Tally(records, checksum);
        }
    }
}
