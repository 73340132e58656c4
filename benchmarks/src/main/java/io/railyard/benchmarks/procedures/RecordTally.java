package io.railyard.benchmarks.procedures;

import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.worker.Tally;
import java.nio.ByteBuffer;

/**
 * Counts records, their bytes and the sum of their 64-bit hashes ({@link #hash}): what a consumer
 * read, or what a producer wrote, as a {@link Delivered}. The sum does not depend on the order the
 * records come in, so consumers that read the same records in any interleaving agree with the
 * producers that wrote them.
 *
 * <p>Design notes. The hash is the record's CRC32C (the JDK's, a CPU instruction on x86 and ARM)
 * and its length, spread over 64 bits by xxHash64's avalanche, so every input bit reaches every
 * output bit. CRC32C reads bytes, so a heap array, a direct page and a Flink buffer of either byte
 * order give the same hash. A sum of such hashes detects a lost, duplicated or truncated record or
 * a shifted record boundary (a different length or CRC), and any corruption of up to 3 bits in a
 * record (CRC32C's guarantee for records this short), the rest except with probability about 2^-32
 * per record. (The first hash, two xxHash64 lanes read through a {@link
 * java.lang.invoke.VarHandle}, took 40 % of a consumer's CPU at 1,000 × 1,000 — a cost the shuffle
 * under test did not have.)
 *
 * <p>Not thread-safe: one per consumer (or producer). No allocation.
 */
public final class RecordTally implements RecordDecoder.RecordSink {
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
     * The 64-bit hash of {@code record[position, limit)} (see the class notes; the local engine's
     * {@link Tally#hash}), leaving its position and limit as they were. O(length); no allocation.
     */
    public static long hash(ByteBuffer record) {
        return Tally.hash(record);
    }
}
