package io.railyard.benchmarks.procedures;

import static com.google.common.base.Preconditions.checkState;

import java.util.Locale;

/**
 * What one side of a shuffle saw of its records: how many, their bytes, and the order-independent
 * checksum {@link RecordTally} keeps (the sum, modulo 2^64, of {@link RecordTally#hash} over every
 * record). Producers state what they wrote, consumers what they read; a shuffle that lost,
 * duplicated, truncated or corrupted a record, or mixed up record boundaries, makes the two differ.
 * Immutable.
 *
 * @param records records counted
 * @param bytes bytes of those records (record bytes only, no framing)
 * @param checksum the sum of the records' 64-bit hashes
 */
public record Delivered(long records, long bytes, long checksum) {
    /** Nothing: the sum of no records. */
    public static final Delivered NONE = new Delivered(0, 0, 0);

    /** This and {@code other} together (sums of each part). O(1); allocates the result. */
    public Delivered plus(Delivered other) {
        return new Delivered(
                records + other.records, bytes + other.bytes, checksum + other.checksum);
    }

    /** The checksum as 16 hexadecimal digits, as tables and JSON show it. */
    public String checksumHex() {
        return String.format(Locale.ROOT, "%016x", checksum);
    }

    /**
     * Fails unless {@code read} (what the consumers of {@code system} read) equals {@code written}
     * (what its producers wrote): same record count, bytes and checksum.
     *
     * @throws IllegalStateException naming both sides (a bug of the system or of the measurement)
     */
    public static void checkAllRead(String system, Delivered read, Delivered written) {
        checkState(
                read.equals(written),
                "%s: consumers read %s records of %s bytes (checksum %s), producers wrote %s"
                        + " records of %s bytes (checksum %s)",
                system,
                read.records,
                read.bytes,
                read.checksumHex(),
                written.records,
                written.bytes,
                written.checksumHex());
    }
}
