package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/** Random record streams, writers and a draining reader shared by the shuffle tests. */
final class ShuffleHarness {
    /** Partition kinds under test. */
    enum Kind {
        SORT,
        HASH
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
            ShuffleWorker worker, Kind kind, String name, int n, Stream stream) throws IOException {
        try (PartitionWriter writer =
                kind == Kind.SORT
                        ? worker.createSortPartition(name, n)
                        : worker.createHashPartition(name, n)) {
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
                gate.availability().get(10, TimeUnit.SECONDS);
                continue;
            }
            try {
                decoder.decode(
                        buffer.channel(),
                        buffer.data(),
                        (channel, record) -> {
                            byte[] bytes = new byte[record.remaining()];
                            record.get(bytes);
                            out.get(channel).add(bytes);
                        });
            } finally {
                buffer.recycle();
            }
        }
        for (int c = 0; c < gate.numChannels(); c++) {
            assertThat(decoder.atRecordBoundary(c)).as("channel %s ends on a record", c).isTrue();
        }
        return out;
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
