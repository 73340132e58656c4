package io.railyard.benchmarks.procedures;

import java.nio.ByteBuffer;

/**
 * The tests' oracle of a shuffle benchmark's records: what the producers of a {@link
 * ShuffleThroughput.Settings} write, hashed record by record, independently of {@link
 * ShuffleRecords#write}.
 */
public final class WrittenRecords {
    private WrittenRecords() {}

    /** Every record the producers of {@code settings} write, as a {@link Delivered}. */
    public static Delivered of(ShuffleThroughput.Settings settings) {
        RecordTally tally = new RecordTally();
        int recordBytes = settings.recordBytes();
        byte[] source = ShuffleRecords.source(recordBytes);
        for (int producer = 0; producer < settings.parallelism(); producer++) {
            long share = ShuffleRecords.share(settings.bytes(), settings.parallelism(), producer);
            for (long at = 0; at < share; at += recordBytes) {
                int slice = (int) (at / recordBytes % 64);
                int length = (int) Math.min(recordBytes, share - at);
                tally.add(ByteBuffer.wrap(source, slice * recordBytes, length));
            }
        }
        return tally.delivered();
    }
}
