package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkElementIndex;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedRange;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * A consumed partition group as the set of workers that produce it, O(workers) instead of
 * O(partitions): the group's partition range, the workers holding its producers (ascending), each
 * worker's connection index, and the producers' attempts as one base attempt plus the partitions
 * that differ. A consumer asks each worker of the set for its subpartition of every partition of
 * the range that worker holds; the worker resolves the range against its own partitions ({@link
 * LocalPartitionIndex}), and the consumer checks that each partition of the range arrived once.
 * Encoded once per group by {@link #encode}; decoded on the worker by {@link #decode}. Immutable.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li>Size: at P = 1,000,000 all-to-all over 1,000 workers the per-partition {@link
 *       GroupDescriptors} are ~1.4 MiB (a worker id per partition, random placement); this shape is
 *       a few dozen bytes when every worker of the table produces (kind ALL), else the smaller of a
 *       bitmap over the table and an ascending delta list — small enough to ship inline in every
 *       consumer's descriptor, so nothing is offloaded and no blob is fetched.
 *   <li>What moves: the partition → worker map moves from the descriptor to the producing workers,
 *       which already know their partitions; the consumer no longer learns which worker holds which
 *       partition before it asks. It needs no more: it reads one subpartition of each partition of
 *       the range, and its gate checks completeness by counting channels.
 *   <li>Attempts: a consumer must not read a stale attempt's data, so the attempt of every
 *       partition stays decodable: one base attempt (the majority, Boyer–Moore vote) and the
 *       partitions whose attempt differs, O(restarted producers).
 *   <li>Connection indices must be a function of the worker (one shuffle endpoint per worker, as
 *       the shuffle master serves them); {@link #encode} rejects a source where they are not.
 * </ul>
 *
 * <h2>Format (version 1)</h2>
 *
 * Inside an envelope (magic {@code "RS"}): varints {@code group, firstPartition, size, tableSize};
 * the worker set as a kind byte — ALL (nothing more), BITMAP ({@code ceil(tableSize / 8)} bytes) or
 * LIST (varint count, the first worker, then varint gaps minus one); the connection indices as
 * CONSTANT (one varint) or PER_WORKER (a varint per worker of the set); the attempts as varints
 * {@code base, exceptions}, then per exception the partition offset's gap to the previous exception
 * (minus one after the first) and the attempt.
 */
public final class WorkerSetGroup {
    static final int MAGIC = 0x5253; // "RS"
    static final int VERSION = 1;
    private static final int ALL = 0;
    private static final int BITMAP = 1;
    private static final int LIST = 2;
    private static final int CONSTANT = 0;
    private static final int PER_WORKER = 1;

    private final int group;
    private final int firstPartition;
    private final int size;
    private final int numWorkers;
    private final int @Nullable [] workers; // ascending; null when every worker of the table (ALL)
    private final int[] connections; // per worker of the set, or one constant
    private final int baseAttempt;
    private final int[] exceptionOffsets; // ascending partition offsets whose attempt differs
    private final int[] exceptionAttempts;

    @SuppressWarnings("TooManyParameters") // built by decode only
    private WorkerSetGroup(
            int group,
            int firstPartition,
            int size,
            int numWorkers,
            int @Nullable [] workers,
            int[] connections,
            int baseAttempt,
            int[] exceptionOffsets,
            int[] exceptionAttempts) {
        this.group = group;
        this.firstPartition = firstPartition;
        this.size = size;
        this.numWorkers = numWorkers;
        this.workers = workers;
        this.connections = connections;
        this.baseAttempt = baseAttempt;
        this.exceptionOffsets = exceptionOffsets;
        this.exceptionAttempts = exceptionAttempts;
    }

    /** The group id. */
    public int group() {
        return group;
    }

    /** The first partition id of the group's range. */
    public int firstPartition() {
        return firstPartition;
    }

    /** The number of partitions in the range (the channels a consumer's gate expects). */
    public int size() {
        return size;
    }

    /** The number of workers producing the group. */
    public int numWorkers() {
        return numWorkers;
    }

    /** The {@code k}-th worker producing the group, ascending. O(1). */
    public int worker(int k) {
        checkElementIndex(k, numWorkers, "worker index");
        return workers == null ? k : workers[k];
    }

    /** The connection index of the {@code k}-th worker. O(1). */
    public int connectionIndex(int k) {
        checkElementIndex(k, numWorkers, "worker index");
        return connections.length == 1 ? connections[0] : connections[k];
    }

    /** The producer attempt of the {@code i}-th partition of the range. O(log exceptions). */
    public int producerAttempt(int i) {
        checkElementIndex(i, size, "partition index");
        int at = Arrays.binarySearch(exceptionOffsets, i);
        return at >= 0 ? exceptionAttempts[at] : baseAttempt;
    }

    /** Partitions whose attempt differs from the majority's. */
    public int numAttemptExceptions() {
        return exceptionOffsets.length;
    }

    /**
     * Encodes group {@code group} of {@code topology} as {@code source} describes it now.
     * O(partitions of the group + workers of the table); allocates O(workers of the table).
     *
     * @throws IllegalStateException if the source gives a worker out of the table or negative
     *     attempt for a partition, or two connection indices for one worker (naming them)
     */
    public static GroupDescriptors.Encoded encode(
            ExecutionTopology topology,
            int group,
            ShuffleDescriptorSource source,
            boolean compress) {
        long range = topology.partitionRange(group);
        int first = PackedRange.start(range);
        int size = PackedRange.size(range);
        int tableSize = source.workers().size();
        int[] connectionOf = new int[tableSize];
        Arrays.fill(connectionOf, -1);
        int numWorkers = 0;
        int candidate = 0;
        int votes = 0;
        for (int p = first; p < first + size; p++) {
            int w = source.worker(p);
            if (w < 0 || w >= tableSize) {
                throw new IllegalStateException(
                        String.format(
                                "the shuffle descriptor source gave worker %s for partition %s;"
                                        + " allowed: [0, %s)",
                                w, p, tableSize));
            }
            int c = source.connectionIndex(p);
            if (connectionOf[w] < 0) {
                connectionOf[w] = c;
                numWorkers++;
            } else if (connectionOf[w] != c) {
                throw new IllegalStateException(
                        String.format(
                                "worker %s serves partition %s at connection index %s and an"
                                        + " earlier partition of group %s at %s; the worker-set"
                                        + " shape needs one connection index per worker",
                                w, p, c, group, connectionOf[w]));
            }
            int attempt = source.producerAttempt(p);
            if (votes == 0) {
                candidate = attempt;
            }
            votes += attempt == candidate ? 1 : -1;
        }
        ByteWriter out = new ByteWriter(32);
        out.writeVarint(group);
        out.writeVarint(first);
        out.writeVarint(size);
        out.writeVarint(tableSize);
        writeWorkers(out, connectionOf, numWorkers);
        writeConnections(out, connectionOf, numWorkers);
        writeAttempts(out, source, first, size, candidate);
        return new GroupDescriptors.Encoded(
                Envelope.seal(MAGIC, VERSION, out.buffer(), out.size(), compress),
                out.size(),
                numWorkers);
    }

    private static void writeWorkers(ByteWriter out, int[] connectionOf, int numWorkers) {
        int tableSize = connectionOf.length;
        long bitmapBytes = (tableSize + 7L) / 8;
        long listBytes = 5;
        int previous = -1;
        for (int w = 0; w < tableSize; w++) {
            if (connectionOf[w] >= 0) {
                listBytes += varintSize(previous < 0 ? w : w - previous - 1);
                previous = w;
            }
        }
        if (numWorkers == tableSize) {
            out.writeByte(ALL);
        } else if (bitmapBytes <= listBytes) {
            out.writeByte(BITMAP);
            for (int from = 0; from < tableSize; from += 8) {
                int b = 0;
                for (int w = from; w < Math.min(from + 8, tableSize); w++) {
                    b |= connectionOf[w] >= 0 ? 1 << (w - from) : 0;
                }
                out.writeByte(b);
            }
        } else {
            out.writeByte(LIST);
            out.writeVarint(numWorkers);
            previous = -1;
            for (int w = 0; w < tableSize; w++) {
                if (connectionOf[w] >= 0) {
                    out.writeVarint(previous < 0 ? w : w - previous - 1);
                    previous = w;
                }
            }
        }
    }

    private static void writeConnections(ByteWriter out, int[] connectionOf, int numWorkers) {
        int constant = -1;
        boolean same = true;
        for (int c : connectionOf) {
            if (c >= 0) {
                same &= constant < 0 || c == constant;
                constant = c;
            }
        }
        if (same) {
            out.writeByte(CONSTANT);
            out.writeVarint(Math.max(0, constant));
            return;
        }
        out.writeByte(PER_WORKER);
        for (int c : connectionOf) {
            if (c >= 0) {
                out.writeVarint(c);
            }
        }
        assert numWorkers > 1;
    }

    private static void writeAttempts(
            ByteWriter out, ShuffleDescriptorSource source, int first, int size, int base) {
        int exceptions = 0;
        for (int i = 0; i < size; i++) {
            int attempt = source.producerAttempt(first + i);
            if (attempt < 0) {
                throw new IllegalStateException(
                        String.format(
                                "the shuffle descriptor source gave producer attempt %s for"
                                        + " partition %s; allowed: >= 0",
                                attempt, first + i));
            }
            exceptions += attempt != base ? 1 : 0;
        }
        out.writeVarint(base);
        out.writeVarint(exceptions);
        int previous = -1;
        for (int i = 0; i < size; i++) {
            int attempt = source.producerAttempt(first + i);
            if (attempt != base) {
                out.writeVarint(previous < 0 ? i : i - previous - 1);
                out.writeVarint(attempt);
                previous = i;
            }
        }
    }

    /**
     * Decodes bytes written by {@link #encode}. Allocates O(workers listed + attempt exceptions),
     * never more than the input can describe (the ALL kind allocates nothing per worker).
     *
     * @throws CorruptDescriptorException if {@code bytes} is truncated, corrupt or foreign
     */
    public static WorkerSetGroup decode(byte[] bytes) {
        int maxPayload = 64 + 5 * WorkerTable.MAX_WORKERS + 10 * JobGraph.MAX_PARALLELISM;
        ByteReader in = Envelope.open(bytes, MAGIC, VERSION, "worker-set group", maxPayload);
        int group = in.readVarint("group", Integer.MAX_VALUE);
        int first = in.readVarint("first partition", Integer.MAX_VALUE);
        int size =
                in.readVarint(
                        "size", Math.min(JobGraph.MAX_PARALLELISM, Integer.MAX_VALUE - first));
        int tableSize = in.readVarint("table size", WorkerTable.MAX_WORKERS);
        int[] workers = readWorkers(in, tableSize);
        int numWorkers = workers == null ? tableSize : workers.length;
        int[] connections;
        int start = in.position();
        int kind = in.readByte("connection kind");
        if (kind == CONSTANT) {
            connections = new int[] {in.readVarint("connection index", Integer.MAX_VALUE)};
        } else if (kind == PER_WORKER) {
            in.need(numWorkers, "connection indices");
            connections = new int[numWorkers];
            for (int k = 0; k < numWorkers; k++) {
                connections[k] = in.readVarint("connection index", Integer.MAX_VALUE);
            }
        } else {
            throw in.corrupt(start, "connection kind", "unknown " + kind);
        }
        int base = in.readVarint("base attempt", Integer.MAX_VALUE);
        int exceptions = in.readVarint("attempt exceptions", size);
        in.need(2 * exceptions, "attempt exceptions"); // two bytes each at least
        int[] offsets = new int[exceptions];
        int[] attempts = new int[exceptions];
        int previous = -1;
        for (int e = 0; e < exceptions; e++) {
            int offset = (e == 0 ? 0 : previous + 1) + in.readVarint("exception gap", size - 1);
            if (offset >= size || offset < 0) {
                throw in.corrupt(
                        in.position(), "exception gap", "offset " + offset + " >= " + size);
            }
            offsets[e] = offset;
            attempts[e] = in.readVarint("attempt", Integer.MAX_VALUE);
            previous = offset;
        }
        in.expectEnd("worker-set group");
        return new WorkerSetGroup(
                group, first, size, numWorkers, workers, connections, base, offsets, attempts);
    }

    private static int @Nullable [] readWorkers(ByteReader in, int tableSize) {
        int start = in.position();
        int kind = in.readByte("worker set kind");
        if (kind == ALL) {
            return null;
        }
        if (kind == BITMAP) {
            in.need((tableSize + 7) / 8, "worker bitmap");
            int[] set = new int[tableSize];
            int n = 0;
            for (int from = 0; from < tableSize; from += 8) {
                int b = in.readByte("worker bitmap");
                for (int w = from; w < Math.min(from + 8, tableSize); w++) {
                    if ((b & (1 << (w - from))) != 0) {
                        set[n++] = w;
                    }
                }
            }
            return Arrays.copyOf(set, n);
        }
        if (kind != LIST) {
            throw in.corrupt(start, "worker set kind", "unknown " + kind);
        }
        int count = in.readVarint("workers", tableSize);
        in.need(count, "worker list");
        int[] set = new int[count];
        int previous = -1;
        for (int k = 0; k < count; k++) {
            long w = (k == 0 ? 0L : previous + 1L) + in.readVarint("worker gap", tableSize);
            if (w >= tableSize) {
                throw in.corrupt(in.position(), "worker gap", "worker " + w + " >= " + tableSize);
            }
            set[k] = (int) w;
            previous = set[k];
        }
        return set;
    }

    private static int varintSize(int value) {
        return (38 - Integer.numberOfLeadingZeros(value | 1)) / 7;
    }
}
