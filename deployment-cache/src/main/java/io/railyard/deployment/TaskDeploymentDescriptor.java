package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import io.railyard.topology.ResultPartitionType;

/**
 * Everything a worker needs to run one task attempt: job and task identity, the job's secret (its
 * readers' proof to other workers' data servers), attempt number, the partitions it produces, and
 * per consumed partition group its shuffle descriptors inline or as a blob key. Built by {@link
 * DeploymentDescriptors}; shipped as {@link #encode()} bytes. Immutable.
 *
 * <h2>Format (version 3)</h2>
 *
 * Inside an envelope (magic {@code "RT"}, version, codec, CRC32C): the job id (16 bytes), the job's
 * secret ({@value JobSecret#BYTES} bytes), varints {@code task, vertex, subtask, attempt}, the
 * produced partitions ({@code count}, then per partition varints {@code partition, dataSet,
 * numSubpartitions} and a type byte) and the inputs ({@code count}, then per input varints {@code
 * group, firstSubpartition, numSubpartitions}, a kind byte, and either a varint length with the
 * encoded group or the blob key's 32 raw bytes). Version 1 had no subpartitions per input, version
 * 2 no secret; a reader knows one version and rejects the others by name. The descriptor is as
 * secret as the job's data: a worker keeps it to itself ({@link #toString()} hides the secret). Not
 * compressed: inline groups are compressed already and the rest is a few dozen bytes.
 *
 * @param job the job
 * @param secret the job's secret
 * @param task the task id
 * @param vertex the task's job vertex
 * @param subtask the task's subtask index
 * @param attempt the attempt number
 * @param produced the partitions it produces
 * @param inputs its consumed partition groups, one per input edge, in input-edge order
 */
public record TaskDeploymentDescriptor(
        JobId job,
        JobSecret secret,
        int task,
        int vertex,
        int subtask,
        int attempt,
        ImmutableList<ProducedPartition> produced,
        ImmutableList<InputDescriptor> inputs) {
    static final int MAGIC = 0x5254; // "RT"
    static final int VERSION = 3;
    private static final int INLINE = 0;
    private static final int BLOB = 1;

    /** Wire codes of the result-partition types: part of the format, never reordered. */
    private static final ResultPartitionType[] TYPE_OF_CODE = {
        ResultPartitionType.PIPELINED,
        ResultPartitionType.PIPELINED_BOUNDED,
        ResultPartitionType.BLOCKING,
        ResultPartitionType.HYBRID_FULL,
        ResultPartitionType.HYBRID_SELECTIVE
    };

    /** Checks the ranges. */
    public TaskDeploymentDescriptor {
        checkArgument(task >= 0, "task must be >= 0, was %s", task);
        checkArgument(vertex >= 0, "vertex must be >= 0, was %s", vertex);
        checkArgument(subtask >= 0, "subtask must be >= 0, was %s", subtask);
        checkArgument(attempt >= 0, "attempt must be >= 0, was %s", attempt);
    }

    /** The descriptor as bytes. O(size). */
    public byte[] encode() {
        return encode(new ByteWriter(128));
    }

    /** {@link #encode()} through {@code scratch}, which it empties first and leaves holding it. */
    byte[] encode(ByteWriter scratch) {
        ByteWriter out = scratch;
        out.reset();
        Envelope.beginUncompressed(out, MAGIC, VERSION);
        out.writeLong(job.high());
        out.writeLong(job.low());
        secret.writeTo(out);
        out.writeVarint(task);
        out.writeVarint(vertex);
        out.writeVarint(subtask);
        out.writeVarint(attempt);
        out.writeVarint(produced.size());
        for (ProducedPartition partition : produced) {
            out.writeVarint(partition.partition());
            out.writeVarint(partition.dataSet());
            out.writeVarint(partition.numSubpartitions());
            out.writeByte(codeOf(partition.type()));
        }
        out.writeVarint(inputs.size());
        for (InputDescriptor input : inputs) {
            out.writeVarint(input.group());
            out.writeVarint(input.firstSubpartition());
            out.writeVarint(input.numSubpartitions());
            if (input instanceof InputDescriptor.Inline inline) {
                byte[] group = inline.encodedGroup();
                out.writeByte(INLINE);
                out.writeVarint(group.length);
                out.writeBytes(group, 0, group.length);
            } else if (input instanceof InputDescriptor.Offloaded offloaded) {
                out.writeByte(BLOB);
                offloaded.key().writeRawBytes(out);
            }
        }
        return Envelope.finishUncompressed(out);
    }

    /**
     * Reads a descriptor written by {@link #encode()}; bounds-checked, allocating no more than the
     * input can describe.
     *
     * @throws CorruptDescriptorException if {@code bytes} is truncated, corrupt or foreign
     */
    public static TaskDeploymentDescriptor decode(byte[] bytes) {
        ByteReader in =
                Envelope.open(bytes, MAGIC, VERSION, "task deployment descriptor", bytes.length);
        JobId job = new JobId(in.readLong("job id"), in.readLong("job id"));
        JobSecret secret = JobSecret.of(in.readBytes(JobSecret.BYTES, "job secret"));
        int task = in.readVarint("task", Integer.MAX_VALUE);
        int vertex = in.readVarint("vertex", Integer.MAX_VALUE);
        int subtask = in.readVarint("subtask", Integer.MAX_VALUE);
        int attempt = in.readVarint("attempt", Integer.MAX_VALUE);
        int numProduced = in.readVarint("produced count", in.remaining() / 4);
        ImmutableList.Builder<ProducedPartition> produced = ImmutableList.builder();
        for (int i = 0; i < numProduced; i++) {
            int partition = in.readVarint("produced partition", Integer.MAX_VALUE);
            int dataSet = in.readVarint("produced dataset", Integer.MAX_VALUE);
            int start = in.position();
            int subpartitions = in.readVarint("subpartitions", Integer.MAX_VALUE);
            if (subpartitions == 0) {
                throw in.corrupt(start, "subpartitions", "must be >= 1");
            }
            int type = in.readByte("partition type");
            if (type >= TYPE_OF_CODE.length) {
                throw in.corrupt(in.position() - 1, "partition type", "unknown type " + type);
            }
            produced.add(
                    new ProducedPartition(partition, dataSet, subpartitions, TYPE_OF_CODE[type]));
        }
        int numInputs = in.readVarint("input count", in.remaining() / 2);
        ImmutableList.Builder<InputDescriptor> inputs = ImmutableList.builder();
        for (int i = 0; i < numInputs; i++) {
            inputs.add(readInput(in));
        }
        in.expectEnd("task deployment descriptor");
        return new TaskDeploymentDescriptor(
                job, secret, task, vertex, subtask, attempt, produced.build(), inputs.build());
    }

    private static int codeOf(ResultPartitionType type) {
        return switch (type) {
            case PIPELINED -> 0;
            case PIPELINED_BOUNDED -> 1;
            case BLOCKING -> 2;
            case HYBRID_FULL -> 3;
            case HYBRID_SELECTIVE -> 4;
        };
    }

    private static InputDescriptor readInput(ByteReader in) {
        int group = in.readVarint("input group", Integer.MAX_VALUE);
        int first = in.readVarint("input first subpartition", Integer.MAX_VALUE);
        int countAt = in.position();
        int count = in.readVarint("input subpartitions", Integer.MAX_VALUE - first);
        if (count == 0) {
            throw in.corrupt(countAt, "input subpartitions", "must be >= 1");
        }
        int kindAt = in.position();
        int kind = in.readByte("input kind");
        if (kind == BLOB) {
            byte[] key = in.readBytes(BlobKey.LENGTH / 2, "blob key");
            return InputDescriptor.offloaded(group, first, count, BlobKey.fromRawBytes(key));
        }
        if (kind != INLINE) {
            throw in.corrupt(kindAt, "input kind", "unknown kind " + kind);
        }
        int length = in.readVarint("inline length", in.remaining());
        return InputDescriptor.inline(group, first, count, in.readBytes(length, "inline group"));
    }
}
