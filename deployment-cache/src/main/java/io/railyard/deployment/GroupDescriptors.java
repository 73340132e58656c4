package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkElementIndex;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedRange;
import org.jspecify.annotations.Nullable;

/**
 * The shuffle descriptors of one consumed partition group: for each of its partitions (ids {@code
 * [firstPartition, firstPartition + size)}, contiguous by construction), the producer's worker,
 * connection index and attempt. Encoded once per group by {@link #encode} and shared by every
 * consumer of the group; decoded on the worker by {@link #decode}. Immutable.
 *
 * <h2>Format (version 2)</h2>
 *
 * Inside an envelope (magic {@code "RG"}, version, codec, CRC32C; see the package's {@code
 * Envelope}): varints {@code group, firstPartition, size}, then three columns — worker, connection
 * index, attempt — each as one kind byte and its data: CONSTANT (one varint), VARINTS (one per
 * partition), DELTAS (zig-zag varint differences to the previous value, the first to 0) or PACKED
 * (a width byte {@code w} in [1, 31], then every value in {@code w} bits, low bits first, in {@code
 * ceil(size * w / 8)} bytes; {@code w} is the bit length of the largest value). The encoder picks
 * the smallest kind per column, so partition ids cost nothing, a constant attempt or connection
 * index costs a byte per group, workers placed in runs cost about a byte per partition (DELTAS),
 * and workers placed at random cost their entropy, ceil(log2(workers)) bits (PACKED: 10 bits at
 * 1,000 workers, where varints need 1.9 bytes) — which leaves deflate nothing to find, so the
 * envelope's sample test ships such a group uncompressed without deflating it (version 1 had no
 * PACKED and deflated the varints to about the same size at ~20 ns a byte).
 */
public final class GroupDescriptors {
    static final int MAGIC = 0x5247; // "RG"
    static final int VERSION = 2;
    static final int CONSTANT = 0;
    static final int VARINTS = 1;
    static final int DELTAS = 2;
    static final int PACKED = 3;

    private final int group;
    private final int firstPartition;
    private final int size;
    private final Column workers;
    private final Column connections;
    private final Column attempts;

    private GroupDescriptors(
            int group,
            int firstPartition,
            int size,
            Column workers,
            Column connections,
            Column attempts) {
        this.group = group;
        this.firstPartition = firstPartition;
        this.size = size;
        this.workers = workers;
        this.connections = connections;
        this.attempts = attempts;
    }

    /** The group id. */
    public int group() {
        return group;
    }

    /** The first partition id. */
    public int firstPartition() {
        return firstPartition;
    }

    /** The number of partitions (and shuffle descriptors). */
    public int size() {
        return size;
    }

    /** The worker of the producer of the {@code i}-th partition. O(1). */
    public int worker(int i) {
        return workers.get(checkElementIndex(i, size, "descriptor index"));
    }

    /** The connection index of the {@code i}-th partition. O(1). */
    public int connectionIndex(int i) {
        return connections.get(checkElementIndex(i, size, "descriptor index"));
    }

    /** The producer attempt of the {@code i}-th partition. O(1). */
    public int producerAttempt(int i) {
        return attempts.get(checkElementIndex(i, size, "descriptor index"));
    }

    /** An encoded group: the framed bytes and the payload size before compression. */
    public static final class Encoded {
        private final byte[] bytes;
        private final int rawPayloadBytes;
        private final int descriptors;

        Encoded(byte[] bytes, int rawPayloadBytes, int descriptors) {
            this.bytes = bytes;
            this.rawPayloadBytes = rawPayloadBytes;
            this.descriptors = descriptors;
        }

        /** The framed bytes, shared: do not modify. */
        public byte[] bytes() {
            return bytes;
        }

        /** The payload size before compression, in bytes. */
        public int rawPayloadBytes() {
            return rawPayloadBytes;
        }

        /** The number of shuffle descriptors encoded. */
        public int descriptors() {
            return descriptors;
        }
    }

    /**
     * Encodes the shuffle descriptors of group {@code group} of {@code topology}, as {@code source}
     * describes them now. O(partitions of the group); allocates the output.
     */
    public static Encoded encode(
            ExecutionTopology topology,
            int group,
            ShuffleDescriptorSource source,
            boolean compress) {
        long range = topology.partitionRange(group);
        int first = PackedRange.start(range);
        int size = PackedRange.size(range);
        int[] values = new int[size];
        ByteWriter out = new ByteWriter(16 + 2 * size);
        out.writeVarint(group);
        out.writeVarint(first);
        out.writeVarint(size);
        int numWorkers = source.workers().size();
        for (int i = 0; i < size; i++) {
            values[i] = checkValue(source.worker(first + i), numWorkers, "worker", first + i);
        }
        writeColumn(out, values);
        for (int i = 0; i < size; i++) {
            values[i] =
                    checkValue(
                            source.connectionIndex(first + i),
                            Integer.MAX_VALUE,
                            "connection index",
                            first + i);
        }
        writeColumn(out, values);
        for (int i = 0; i < size; i++) {
            values[i] =
                    checkValue(
                            source.producerAttempt(first + i),
                            Integer.MAX_VALUE,
                            "producer attempt",
                            first + i);
        }
        writeColumn(out, values);
        return new Encoded(
                Envelope.seal(MAGIC, VERSION, out.buffer(), out.size(), compress),
                out.size(),
                size);
    }

    /**
     * Decodes bytes written by {@link #encode}. Allocates at most an int per partition for each
     * non-constant column, and never more than the input can describe.
     *
     * @throws CorruptDescriptorException if {@code bytes} is truncated, corrupt or foreign
     */
    public static GroupDescriptors decode(byte[] bytes) {
        int maxPayload = 15 + 3 * (1 + 5 * JobGraph.MAX_PARALLELISM);
        ByteReader in =
                Envelope.open(bytes, MAGIC, VERSION, "shuffle descriptor group", maxPayload);
        int group = in.readVarint("group", Integer.MAX_VALUE);
        int first = in.readVarint("first partition", Integer.MAX_VALUE);
        int size = in.readVarint("size", Integer.MAX_VALUE - first);
        if (size > JobGraph.MAX_PARALLELISM) {
            throw in.corrupt(in.position(), "size", size + " > " + JobGraph.MAX_PARALLELISM);
        }
        Column workers = readColumn(in, size, "worker");
        Column connections = readColumn(in, size, "connection index");
        Column attempts = readColumn(in, size, "attempt");
        in.expectEnd("shuffle descriptor group");
        return new GroupDescriptors(group, first, size, workers, connections, attempts);
    }

    static int checkValue(int value, int bound, String what, int partition) {
        if (value < 0 || value >= bound) {
            throw new IllegalStateException(
                    String.format(
                            "the shuffle descriptor source gave %s %s for partition %s; allowed:"
                                    + " [0, %s)",
                            what, value, partition, bound));
        }
        return value;
    }

    private static void writeColumn(ByteWriter out, int[] values) {
        ColumnChoice choice = new ColumnChoice();
        choice.addAll(values, 0, values.length);
        int kind = choice.kind();
        out.writeByte(kind);
        if (kind == CONSTANT) {
            out.writeVarint(choice.constant());
        } else if (kind == VARINTS) {
            for (int value : values) {
                out.writeVarint(value);
            }
        } else if (kind == PACKED) {
            BitPacker packer = new BitPacker(out, choice.width());
            for (int value : values) {
                packer.add(value);
            }
            packer.flush();
        } else {
            int previous = 0;
            for (int value : values) {
                out.writeVarint(zigZag(value - previous));
                previous = value;
            }
        }
    }

    /**
     * The kind of one column, chosen from its values fed in order: CONSTANT if all are equal (or
     * there are none), else the smallest of VARINTS, DELTAS and PACKED (in that order on a tie).
     * Shared by {@link #encode} and the resumable {@code GroupEncoding}, so both pick the same
     * kind. O(1) a value, no allocation.
     */
    static final class ColumnChoice {
        private int count;
        private int first;
        private boolean constant = true;
        private long varintBytes;
        private long deltaBytes;
        private int previous;
        private int bits; // the OR of every value: its bit length is PACKED's width

        /** Feeds {@code values[from, to)}, in order. O(to - from), no allocation. */
        void addAll(int[] values, int from, int to) {
            if (from == to) {
                return;
            }
            if (count == 0) {
                first = values[from];
            }
            // Locals, not fields, in the loop: it runs once per partition and column.
            boolean same = constant;
            long varints = varintBytes;
            long deltas = deltaBytes;
            int last = previous;
            int base = first;
            int or = bits;
            for (int i = from; i < to; i++) {
                int value = values[i];
                same &= value == base;
                or |= value;
                varints += varintSize(value);
                int delta = zigZag(value - last);
                deltas += delta < 0 ? Integer.MAX_VALUE : varintSize(delta); // < 0: too far apart
                last = value;
            }
            count += to - from;
            constant = same;
            varintBytes = varints;
            deltaBytes = deltas;
            previous = last;
            bits = or;
        }

        /** CONSTANT, VARINTS, DELTAS or PACKED. */
        int kind() {
            if (count == 0 || constant) {
                return CONSTANT;
            }
            long packedBytes = 1 + ((long) count * width() + 7) / 8;
            if (varintBytes <= deltaBytes && varintBytes <= packedBytes) {
                return VARINTS;
            }
            return deltaBytes <= packedBytes ? DELTAS : PACKED;
        }

        /** PACKED's width: the bit length of the largest value fed, at least 1. */
        int width() {
            return Math.max(1, 32 - Integer.numberOfLeadingZeros(bits));
        }

        /** The value of a CONSTANT column (0 for an empty one). */
        int constant() {
            return count == 0 ? 0 : first;
        }
    }

    private static Column readColumn(ByteReader in, int size, String field) {
        int start = in.position();
        int kind = in.readByte(field + " column kind");
        if (kind == CONSTANT) {
            return new Column(in.readVarint(field, Integer.MAX_VALUE), null);
        }
        if (kind == PACKED) {
            return new Column(0, readPacked(in, size, field));
        }
        if (kind != VARINTS && kind != DELTAS) {
            throw in.corrupt(start, field + " column kind", "unknown " + kind);
        }
        in.need(size, field + " column"); // at least a byte per value: no forged allocation
        int[] values = new int[size];
        long previous = 0;
        for (int i = 0; i < size; i++) {
            int position = in.position();
            if (kind == VARINTS) {
                values[i] = in.readVarint(field, Integer.MAX_VALUE);
            } else {
                long value = previous + unZigZag(in.readVarint(field, Integer.MAX_VALUE));
                if (value < 0 || value > Integer.MAX_VALUE) {
                    throw in.corrupt(position, field, "delta leads to " + value);
                }
                values[i] = (int) value;
            }
            previous = values[i];
        }
        return new Column(0, values);
    }

    private static int[] readPacked(ByteReader in, int size, String field) {
        int start = in.position();
        int width = in.readByte(field + " bit width");
        if (width < 1 || width > 31) {
            throw in.corrupt(start, field + " bit width", width + " is not in [1, 31]");
        }
        long length = ((long) size * width + 7) / 8;
        byte[] bytes = in.readBytes((int) length, field + " column"); // checked before allocating
        int[] values = new int[size];
        long mask = (1L << width) - 1;
        long acc = 0;
        int filled = 0;
        int next = 0;
        for (int i = 0; i < size; i++) {
            while (filled < width) {
                acc |= (bytes[next++] & 0xFFL) << filled;
                filled += 8;
            }
            values[i] = (int) (acc & mask);
            acc >>>= width;
            filled -= width;
        }
        return values;
    }

    /**
     * Writes values of {@code width} bits each, low bits first, as PACKED stores them; {@link
     * #flush} writes the last, partial byte. O(1) a value. Not thread-safe.
     */
    static final class BitPacker {
        private final ByteWriter out;
        private final int width;
        private long acc; // fewer than 8 bits between calls
        private int filled;

        BitPacker(ByteWriter out, int width) {
            this.out = out;
            this.width = width;
            out.writeByte(width);
        }

        void add(int value) {
            acc |= (long) value << filled;
            filled += width;
            while (filled >= 8) {
                out.writeByte((int) acc);
                acc >>>= 8;
                filled -= 8;
            }
        }

        void flush() {
            if (filled > 0) {
                out.writeByte((int) acc);
                acc = 0;
                filled = 0;
            }
        }
    }

    static int zigZag(int value) {
        return (value << 1) ^ (value >> 31);
    }

    private static long unZigZag(int encoded) {
        return (long) ((encoded >>> 1) ^ -(encoded & 1));
    }

    private static int varintSize(int value) {
        return (38 - Integer.numberOfLeadingZeros(value | 1)) / 7;
    }

    /** A column: a constant, or one value per descriptor. */
    private static final class Column {
        private final int constant;
        private final int @Nullable [] values;

        Column(int constant, int @Nullable [] values) {
            this.constant = constant;
            this.values = values;
        }

        int get(int i) {
            return values == null ? constant : values[i];
        }
    }
}
