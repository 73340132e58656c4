package io.railyard.worker;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * A count of records and an order-independent checksum of their bytes (a sum of 64-bit hashes), so
 * two tallies are equal when the same multiset of records passed, in any order. Immutable; {@link
 * #plus} combines.
 *
 * @param records how many records
 * @param checksum the sum of their hashes
 */
public record Tally(long records, long checksum) {
    private static final ThreadLocal<CRC32C> CRC = ThreadLocal.withInitial(CRC32C::new);

    /** Nothing counted. */
    public static final Tally ZERO = new Tally(0, 0);

    /** This tally and {@code other} together. */
    public Tally plus(Tally other) {
        return new Tally(records + other.records, checksum + other.checksum);
    }

    /**
     * The 64-bit hash of {@code record[position, limit)}, leaving its position and limit as they
     * were: its CRC32C (a CPU instruction) and its length, spread over 64 bits by xxHash64's
     * avalanche, so a sum of hashes detects a lost, duplicated or truncated record or a moved
     * boundary. It reads bytes, so heap and direct buffers of either byte order agree. O(length);
     * no allocation.
     */
    public static long hash(ByteBuffer record) {
        CRC32C crc = CRC.get();
        crc.reset();
        int at = record.position();
        crc.update(record);
        record.position(at);
        long h = crc.getValue() << 32 ^ record.remaining();
        h ^= h >>> 33;
        h *= 0xC2B2AE3D27D4EB4FL; // xxHash64's primes
        h ^= h >>> 29;
        h *= 0x165667B19E3779F9L;
        return h ^ (h >>> 32);
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
