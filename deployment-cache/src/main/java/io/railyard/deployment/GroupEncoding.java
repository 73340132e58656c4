package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.PackedRange;
import java.util.zip.Deflater;
import org.jspecify.annotations.Nullable;

/**
 * The encoding of one consumed partition group made in bounded steps: the bytes of {@link
 * GroupDescriptors#encode}, built by {@link #step} calls of at most a given number of budget units
 * each and a last, uncut {@link #finish}, so that the JobManager's main thread can serve other
 * events in between ({@link DeploymentSlices}).
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li>Phases, in order: for each column (worker, connection index, attempt) GATHER — read the
 *       column's value of each partition from the source, feeding the column's kind choice — then
 *       WRITE — append the values in the chosen kind to the payload (nothing for a CONSTANT
 *       column); then, when compressing, DEFLATE — feed the payload to a streaming {@link
 *       Deflater}, its first {@code Envelope.SAMPLE_BYTES} first and alone when it is longer (the
 *       whole payload from its start only if the sample pays, as {@code Envelope.seal} decides);
 *       then FINISH — choose deflated or not and frame it ({@code Envelope.frame}, a copy and a
 *       CRC32C of the encoded bytes), the one step that is not cut.
 *   <li>Units: a budget unit is about the cost of one task descriptor (~75 ns): {@value
 *       #VALUES_PER_UNIT} column values gathered and written, or {@value #DEFLATE_BYTES_PER_UNIT}
 *       payload bytes deflated (JDK raw deflate at {@code BEST_SPEED} costs ~20 ns a byte), or
 *       {@value #FINISH_BYTES_PER_UNIT} encoded bytes framed and offloaded (a copy, a CRC32C and a
 *       SHA-256). At P = 1,000,000 over 1,000 random workers a group is ~266,000 units of steps
 *       (250,000 to gather the three columns and write the workers' 10-bit PACKED column, 16,384 to
 *       deflate the sample, which does not pay) and a finish of ~39,000 units (1.25 MB).
 *   <li>Same bytes: the columns are chosen by the same {@code GroupDescriptors.ColumnChoice} and
 *       written in the same order; the deflater is fed in pieces without flushing and finished
 *       after the last, which yields the stream one call with all the input gives (zlib matches
 *       only once it holds a full lookahead or the input is finished, and cuts blocks by its own
 *       buffer sizes). {@code GroupEncodingTest} checks it against {@link GroupDescriptors#encode}.
 *   <li>Visibility: nothing leaves this object before {@link #finish}; an encoding discarded
 *       half-way (its group invalidated, the source failed) leaves no trace but its garbage.
 *   <li>Source reads: each partition's value of a column is read once, in the GATHER step that
 *       covers it; a source that changes in between must be followed by a discard (the owner's
 *       {@code invalidatePartition}).
 * </ul>
 *
 * <p>Costs: a step is O(its units), amortized (a payload or output buffer that grows is copied);
 * memory: an int per partition (one column at a time, until the last is written), the payload, the
 * deflated output and, while deflating, a {@link Deflater}'s native state (~300 KiB), freed by the
 * last deflate step or {@link #discard}. Not thread-safe: the JobManager's main thread.
 */
final class GroupEncoding {
    /** Column values gathered and written per budget unit. */
    static final int VALUES_PER_UNIT = 16;

    /** Payload bytes deflated per budget unit. */
    static final int DEFLATE_BYTES_PER_UNIT = 4;

    /** Encoded bytes framed and offloaded per budget unit. */
    static final int FINISH_BYTES_PER_UNIT = 32;

    private static final int GATHER = 0;
    private static final int WRITE = 1;
    private static final int DEFLATE = 2;
    private static final int FINISH = 3;
    private static final int DONE = 4;
    private static final int COLUMNS = 3; // worker, connection index, attempt
    private static final int CHUNK_BYTES = 8192; // deflate output per call

    private final int group;
    private final int first;
    private final int size;
    private final int numWorkers;
    private final ShuffleDescriptorSource source;
    private final boolean compress;
    private final ByteWriter payload;
    private ByteWriter deflated = new ByteWriter(0); // sized when deflating starts
    private @Nullable Deflater deflater; // while deflating
    private int[] values; // the current column's, one per partition; empty once all are written
    private GroupDescriptors.ColumnChoice choice = new GroupDescriptors.ColumnChoice();
    private int phase = GATHER;
    private int column;
    private int kind;
    private int index; // the next partition (GATHER, WRITE) or payload byte (DEFLATE)
    private int deflateEnd; // the end of the payload's sample, then of the payload (DEFLATE)
    private boolean sampleFailed; // the sample did not pay: shipped uncompressed
    private int previous; // the last value written of a DELTAS column
    private GroupDescriptors.@Nullable BitPacker packer; // while writing a PACKED column
    private GroupDescriptors.@Nullable Encoded encoded;

    /**
     * The encoding of group {@code group} of {@code topology} as {@code source} describes it during
     * the steps, compressed when {@code compress} and it pays. Allocates an int per partition and
     * the payload buffer (about two bytes per partition); reads nothing yet.
     */
    GroupEncoding(
            ExecutionTopology topology,
            int group,
            ShuffleDescriptorSource source,
            boolean compress) {
        long range = topology.partitionRange(group);
        this.group = group;
        this.first = PackedRange.start(range);
        this.size = PackedRange.size(range);
        this.numWorkers = source.workers().size();
        this.source = source;
        this.compress = compress;
        this.values = new int[size];
        this.payload = new ByteWriter(16 + 2 * size); // as GroupDescriptors.encode
        payload.writeVarint(group);
        payload.writeVarint(first);
        payload.writeVarint(size);
    }

    /** The group encoded. O(1). */
    int group() {
        return group;
    }

    /** Whether every step is done and only {@link #finish} remains (or was done). O(1). */
    boolean isStepped() {
        return phase >= FINISH;
    }

    /**
     * Does the next at most {@code maxUnits} units of the steps and returns the units done, at
     * least 1 (a step that ends a phase may count one unit for less work).
     *
     * @throws IllegalStateException if the steps are done ({@link #isStepped()}), or the source
     *     gives a value out of range — the encoding is then unusable: discard it
     */
    int step(int maxUnits) {
        checkArgument(maxUnits >= 1, "maxUnits must be >= 1, was %s", maxUnits);
        checkState(!isStepped(), "group %s: every step is done, only finish() remains", group);
        if (phase == GATHER) {
            return gather(maxUnits);
        }
        return phase == WRITE ? write(maxUnits) : deflate(maxUnits);
    }

    private int gather(int maxUnits) {
        int end = (int) Math.min(size, index + (long) maxUnits * VALUES_PER_UNIT);
        if (column == 0) {
            for (int i = index; i < end; i++) {
                int p = first + i;
                values[i] = GroupDescriptors.checkValue(source.worker(p), numWorkers, "worker", p);
            }
        } else if (column == 1) {
            for (int i = index; i < end; i++) {
                int p = first + i;
                values[i] =
                        GroupDescriptors.checkValue(
                                source.connectionIndex(p),
                                Integer.MAX_VALUE,
                                "connection index",
                                p);
            }
        } else {
            for (int i = index; i < end; i++) {
                int p = first + i;
                values[i] =
                        GroupDescriptors.checkValue(
                                source.producerAttempt(p),
                                Integer.MAX_VALUE,
                                "producer attempt",
                                p);
            }
        }
        choice.addAll(values, index, end);
        int units = units(end - index, VALUES_PER_UNIT);
        index = end;
        if (index == size) {
            kind = choice.kind();
            payload.writeByte(kind);
            if (kind == GroupDescriptors.CONSTANT) {
                payload.writeVarint(choice.constant());
                nextColumn();
            } else {
                phase = WRITE;
                index = 0;
                previous = 0;
                packer =
                        kind == GroupDescriptors.PACKED
                                ? new GroupDescriptors.BitPacker(payload, choice.width())
                                : null;
            }
        }
        return units;
    }

    private int write(int maxUnits) {
        int end = (int) Math.min(size, index + (long) maxUnits * VALUES_PER_UNIT);
        GroupDescriptors.BitPacker bits = packer;
        if (kind == GroupDescriptors.VARINTS) {
            for (int i = index; i < end; i++) {
                payload.writeVarint(values[i]);
            }
        } else if (bits != null) {
            for (int i = index; i < end; i++) {
                bits.add(values[i]);
            }
            if (end == size) {
                bits.flush();
            }
        } else {
            int last = previous;
            for (int i = index; i < end; i++) {
                payload.writeVarint(GroupDescriptors.zigZag(values[i] - last));
                last = values[i];
            }
            previous = last;
        }
        int units = units(end - index, VALUES_PER_UNIT);
        index = end;
        if (index == size) {
            nextColumn();
        }
        return units;
    }

    private void nextColumn() {
        column++;
        index = 0;
        choice = new GroupDescriptors.ColumnChoice();
        if (column < COLUMNS) {
            phase = GATHER;
            return;
        }
        values = new int[0];
        phase = compress ? DEFLATE : FINISH;
    }

    private int deflate(int maxUnits) {
        Deflater running = deflater;
        if (running == null) {
            running = Envelope.newDeflater();
            deflater = running;
            deflateEnd = Math.min(payload.size(), Envelope.SAMPLE_BYTES);
            // Sized as Envelope.deflate sizes its output, for what is deflated first (the sample of
            // a long payload, which grows it only if it pays).
            deflated = new ByteWriter(deflateEnd / 2 + 64);
        }
        int end = (int) Math.min(deflateEnd, index + (long) maxUnits * DEFLATE_BYTES_PER_UNIT);
        running.setInput(payload.buffer(), index, end - index);
        int units = units(end - index, DEFLATE_BYTES_PER_UNIT);
        index = end;
        if (index < deflateEnd) {
            while (!running.needsInput()) {
                drain(running);
            }
            return units;
        }
        running.finish();
        while (!running.finished()) {
            drain(running);
        }
        if (deflateEnd < payload.size()) { // the sample is deflated: the payload's turn, or none
            if (Envelope.samplePays(deflated.size())) {
                running.reset();
                deflated.reset();
                index = 0;
                deflateEnd = payload.size();
                return units;
            }
            sampleFailed = true;
        }
        discard();
        phase = FINISH;
        return units;
    }

    private void drain(Deflater running) {
        deflated.ensureCapacity(CHUNK_BYTES);
        int n = running.deflate(deflated.buffer(), deflated.size(), CHUNK_BYTES);
        deflated.skip(n);
    }

    /** What {@link #finish} costs, in budget units (>= 1). O(1). */
    int finishUnits() {
        checkState(isStepped(), "group %s: steps remain before finish()", group);
        return units(Math.max(1, bodyLength()), FINISH_BYTES_PER_UNIT);
    }

    private boolean deflates() {
        return compress
                && !sampleFailed
                && Envelope.compressionPays(deflated.size(), payload.size());
    }

    private int bodyLength() {
        return deflates() ? deflated.size() : payload.size();
    }

    /**
     * The encoded group, framed on the first call (O(encoded bytes)) and the same object after.
     *
     * @throws IllegalStateException if steps remain ({@link #isStepped()} is false)
     */
    GroupDescriptors.Encoded finish() {
        checkState(isStepped(), "group %s: steps remain before finish()", group);
        GroupDescriptors.Encoded done = encoded;
        if (done == null) {
            int codec = deflates() ? Envelope.CODEC_DEFLATE : Envelope.CODEC_NONE;
            ByteWriter body = deflates() ? deflated : payload;
            byte[] bytes =
                    Envelope.frame(
                            GroupDescriptors.MAGIC,
                            GroupDescriptors.VERSION,
                            codec,
                            payload.size(),
                            body.buffer(),
                            body.size());
            done = new GroupDescriptors.Encoded(bytes, payload.size(), size);
            encoded = done;
            phase = DONE;
        }
        return done;
    }

    /**
     * Frees the deflater's native state, if it holds one; a discarded encoding must not step again.
     * Idempotent.
     */
    void discard() {
        Deflater running = deflater;
        if (running != null) {
            running.end();
            deflater = null;
        }
    }

    /** {@code amount} of work in units of {@code perUnit}, rounded up, at least 1. */
    private static int units(int amount, int perUnit) {
        return Math.max(1, (amount + perUnit - 1) / perUnit);
    }
}
