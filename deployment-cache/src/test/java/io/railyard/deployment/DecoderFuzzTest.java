package io.railyard.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedRange;
import io.railyard.topology.RandomJobGraphs;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Round trips of every encoding on random jobs, and the decoders under random, mutated and forged
 * input: nothing but {@link CorruptDescriptorException} comes out, and no forged length makes them
 * allocate more than the input could describe. Mutations are applied both to the framed bytes (the
 * checksum must catch them) and to the payload re-framed with a valid checksum (the parser must
 * catch them).
 */
class DecoderFuzzTest {
    private static final JobId JOB = new JobId(-1L, 42L);

    static LongStream seeds() {
        return LongStream.range(11_000, 11_150);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void everyEncoding_roundTrips_andSurvivesMutation(long seed) throws IOException {
        SplittableRandom random = new SplittableRandom(seed);
        JobGraph graph = RandomJobGraphs.generate(seed);
        ExecutionTopology topology = ExecutionTopology.of(graph);
        StaticShuffleDescriptors shuffle =
                new StaticShuffleDescriptors(graph, 1 + random.nextInt(2_000));
        for (int task = 0; task < graph.numTasks(); task++) {
            shuffle.setProducerAttempt(task, random.nextInt(3) == 0 ? random.nextInt(1_000) : 0);
        }
        List<byte[]> valid = new ArrayList<>();
        for (int g = 0; g < topology.numGroups(); g++) {
            byte[] bytes =
                    GroupDescriptors.encode(topology, g, shuffle, random.nextBoolean()).bytes();
            checkGroup(GroupDescriptors.decode(bytes), topology, g, shuffle);
            valid.add(bytes);
        }
        OffloadOptions options =
                new OffloadOptions(random.nextBoolean(), 1 + random.nextInt(500), 1 << 20, true);
        DeploymentDescriptors descriptors =
                new DeploymentDescriptors(JOB, topology, shuffle, new InMemoryBlobStore(), options);
        for (int task = 0; task < graph.numTasks(); task++) {
            TaskDeploymentDescriptor descriptor = descriptors.create(task, random.nextInt(5));
            byte[] bytes = descriptor.encode();
            assertThat(TaskDeploymentDescriptor.decode(bytes)).isEqualTo(descriptor);
            valid.add(bytes);
        }
        descriptors.close(); // the job's blob references
        byte[] table = shuffle.workers().encode();
        assertThat(WorkerTable.decode(table)).isEqualTo(shuffle.workers());
        valid.add(table);

        for (int round = 0; round < 40; round++) {
            byte[] original = valid.get(random.nextInt(valid.size()));
            decodeOrReject(mutate(original, random));
            decodeOrReject(reframedMutation(original, random));
            decodeOrReject(randomBytes(random));
        }
    }

    private static void checkGroup(
            GroupDescriptors group,
            ExecutionTopology topology,
            int g,
            ShuffleDescriptorSource src) {
        assertThat(group.group()).isEqualTo(g);
        assertThat(group.firstPartition()).isEqualTo(PackedRange.start(topology.partitionRange(g)));
        assertThat(group.size()).isEqualTo(PackedRange.size(topology.partitionRange(g)));
        for (int i = 0; i < group.size(); i++) {
            int p = group.firstPartition() + i;
            assertThat(group.worker(i)).isEqualTo(src.worker(p));
            assertThat(group.connectionIndex(i)).isEqualTo(src.connectionIndex(p));
            assertThat(group.producerAttempt(i)).isEqualTo(src.producerAttempt(p));
        }
    }

    /** Each decoder either accepts the bytes or throws the documented exception, nothing else. */
    private static void decodeOrReject(byte[] bytes) {
        for (Consumer<byte[]> decoder :
                List.<Consumer<byte[]>>of(
                        GroupDescriptors::decode,
                        TaskDeploymentDescriptor::decode,
                        WorkerTable::decode)) {
            try {
                decoder.accept(bytes);
            } catch (CorruptDescriptorException expected) {
                assertThat(expected.getMessage()).startsWith("corrupt descriptor at byte ");
            }
        }
    }

    private static byte[] mutate(byte[] original, SplittableRandom random) {
        byte[] bytes = original.clone();
        switch (random.nextInt(4)) {
            case 0 -> bytes[random.nextInt(bytes.length)] ^= (byte) (1 << random.nextInt(8));
            case 1 -> bytes = Arrays.copyOf(bytes, random.nextInt(bytes.length));
            case 2 -> bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
            default -> {
                bytes = Arrays.copyOf(bytes, bytes.length + 1 + random.nextInt(8));
                bytes[bytes.length - 1] = (byte) random.nextInt(256);
            }
        }
        return bytes;
    }

    /** Mutates the payload of an uncompressed frame and frames it again with a valid checksum. */
    private static byte[] reframedMutation(byte[] original, SplittableRandom random) {
        int magic = ((original[0] & 0xFF) << 8) | (original[1] & 0xFF);
        byte[] payload =
                original[3] == Envelope.CODEC_NONE
                        ? Arrays.copyOfRange(original, 4, original.length - 4)
                        : randomBytes(random);
        byte[] mutated = payload.length == 0 ? randomBytes(random) : mutate(payload, random);
        return Envelope.seal(
                magic, original[2] & 0xFF, mutated, mutated.length, random.nextBoolean());
    }

    private static byte[] randomBytes(SplittableRandom random) {
        byte[] bytes = new byte[random.nextInt(200)];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) random.nextInt(256);
        }
        return bytes;
    }

    /** A group of {@code size} descriptors whose worker column is PACKED at {@code width}. */
    private static byte[] forgedPackedGroup(int size, int width) {
        ByteWriter group = new ByteWriter(16);
        group.writeVarint(0); // group
        group.writeVarint(0); // first partition
        group.writeVarint(size);
        group.writeByte(GroupDescriptors.PACKED);
        group.writeByte(width);
        return sealedGroup(group);
    }

    /** {@code payload} framed, uncompressed, as a group of the current format. */
    private static byte[] sealedGroup(ByteWriter payload) {
        return Envelope.seal(
                GroupDescriptors.MAGIC,
                GroupDescriptors.VERSION,
                payload.buffer(),
                payload.size(),
                false);
    }

    @Test
    void packedWidthOutsideOneTo31_isRejected_namingIt() {
        for (int width : new int[] {0, 32, 255}) {
            assertThatThrownBy(() -> GroupDescriptors.decode(forgedPackedGroup(4, width)))
                    .isInstanceOf(CorruptDescriptorException.class)
                    .hasMessageContaining("worker bit width")
                    .hasMessageContaining(width + " is not in [1, 31]");
        }
    }

    @Test
    void packedColumns_roundTrip_atEveryWidth() {
        SplittableRandom random = new SplittableRandom(3);
        for (int width = 1; width <= 31; width++) {
            int[] values = new int[1 + random.nextInt(200)];
            ByteWriter column = new ByteWriter(16);
            GroupDescriptors.BitPacker packer = new GroupDescriptors.BitPacker(column, width);
            for (int i = 0; i < values.length; i++) {
                values[i] = i == 0 ? (int) ((1L << width) - 1) : random.nextInt(1 << (width - 1));
                packer.add(values[i]);
            }
            packer.flush();
            assertThat(column.size()).isEqualTo(1 + (values.length * width + 7) / 8);
            ByteWriter group = new ByteWriter(16);
            group.writeVarint(0);
            group.writeVarint(0);
            group.writeVarint(values.length);
            group.writeByte(GroupDescriptors.PACKED); // workers: width byte, then the values
            group.writeBytes(column.buffer(), 0, column.size());
            group.writeByte(GroupDescriptors.CONSTANT); // connection index 0
            group.writeVarint(0);
            group.writeByte(GroupDescriptors.PACKED); // attempts: the same column again
            group.writeBytes(column.buffer(), 0, column.size());
            GroupDescriptors decoded = GroupDescriptors.decode(sealedGroup(group));
            for (int i = 0; i < values.length; i++) {
                assertThat(decoded.worker(i))
                        .as("width %s, value %s", width, i)
                        .isEqualTo(values[i]);
                assertThat(decoded.producerAttempt(i)).isEqualTo(values[i]);
            }
        }
    }

    @Test
    void forgedLengths_areRejectedBeforeAllocating() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        ByteWriter group = new ByteWriter(16);
        group.writeVarint(0); // group
        group.writeVarint(0); // first partition
        group.writeVarint(1 << 24); // size: 16 M descriptors
        group.writeByte(1); // VARINTS, with nothing behind it
        byte[] forgedGroup = sealedGroup(group);
        byte[] forgedPacked = forgedPackedGroup(1 << 24, 31); // 64 MiB of values, none behind
        ByteWriter deflated = new ByteWriter(16);
        deflated.writeByte(GroupDescriptors.MAGIC >>> 8);
        deflated.writeByte(GroupDescriptors.MAGIC);
        deflated.writeByte(GroupDescriptors.VERSION);
        deflated.writeByte(Envelope.CODEC_DEFLATE);
        deflated.writeVarint(Integer.MAX_VALUE); // declared uncompressed length
        deflated.writeByte(0);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(deflated.buffer(), 0, deflated.size());
        deflated.writeInt((int) crc.getValue());
        byte[] forgedDeflate = deflated.toByteArray();

        long before = threads.getCurrentThreadAllocatedBytes();
        assertThatThrownBy(() -> GroupDescriptors.decode(forgedGroup))
                .isInstanceOf(CorruptDescriptorException.class)
                .hasMessageContaining("worker column")
                .hasMessageContaining("truncated");
        assertThatThrownBy(() -> GroupDescriptors.decode(forgedPacked))
                .isInstanceOf(CorruptDescriptorException.class)
                .hasMessageContaining("worker column")
                .hasMessageContaining("truncated");
        assertThatThrownBy(() -> GroupDescriptors.decode(forgedDeflate))
                .isInstanceOf(CorruptDescriptorException.class)
                .hasMessageContaining("uncompressed length");
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(allocated).isLessThan(1 << 20); // 16 M descriptors would be 64 MiB
    }

    @Test
    void foreignAndVersionedInput_isNamed() {
        byte[] table = new WorkerTable(List.of("a:1")).encode();
        assertThatThrownBy(() -> GroupDescriptors.decode(table))
                .hasMessageContaining("field magic")
                .hasMessageContaining("not a shuffle descriptor group");
        byte[] newer = table.clone();
        newer[2] = 9;
        assertThatThrownBy(() -> WorkerTable.decode(newer))
                .hasMessageContaining("unknown worker table version 9, this reader knows 1");
        byte[] flipped = table.clone();
        flipped[5] ^= 1;
        assertThatThrownBy(() -> WorkerTable.decode(flipped))
                .hasMessageContaining("CRC32C mismatch");
        assertThatThrownBy(() -> WorkerTable.decode(new byte[3])).hasMessageContaining("too short");
    }

    @Test
    void workerTable_locationNotUtf8_isCorruptNotAnIllegalArgument() {
        // Found by review while writing DescriptorDecodersFuzzTest: 400 bytes of 0xff decoded to
        // 400
        // replacement characters, 1,200 UTF-8 bytes, and the table's constructor threw.
        ByteWriter payload = new ByteWriter(512);
        payload.writeVarint(1);
        payload.writeVarint(400);
        byte[] location = new byte[400];
        Arrays.fill(location, 100, 400, (byte) 0xff);
        Arrays.fill(location, 0, 100, (byte) 'w');
        payload.writeBytes(location, 0, location.length);
        byte[] table =
                Envelope.seal(
                        WorkerTable.MAGIC,
                        WorkerTable.VERSION,
                        payload.buffer(),
                        payload.size(),
                        false);

        assertThatThrownBy(() -> WorkerTable.decode(table))
                .isInstanceOf(CorruptDescriptorException.class)
                .hasMessage(
                        "corrupt descriptor at byte 107, field location: the location of worker 0"
                                + " is not UTF-8 (byte 0xff at its byte 100)");
    }

    @Test
    void deflatedPayload_errorOffset_isSaidToBeThePayloads() {
        // Found by DescriptorDecodersFuzzTest: "at byte 89" of a 42-byte input.
        ByteWriter payload = new ByteWriter(512);
        payload.writeVarint(1);
        payload.writeVarint(300);
        byte[] location = new byte[300];
        Arrays.fill(location, (byte) 'w');
        payload.writeBytes(location, 0, location.length);
        payload.writeVarint(5); // a trailing byte, at byte 303 of the payload
        byte[] table =
                Envelope.seal(
                        WorkerTable.MAGIC,
                        WorkerTable.VERSION,
                        payload.buffer(),
                        payload.size(),
                        true);
        assertThat(table[3]).as("deflated").isEqualTo((byte) Envelope.CODEC_DEFLATE);

        assertThatThrownBy(() -> WorkerTable.decode(table))
                .isInstanceOf(CorruptDescriptorException.class)
                .hasMessageStartingWith("corrupt descriptor at byte 303 of the inflated payload,")
                .satisfies(
                        e ->
                                assertThat(((CorruptDescriptorException) e).inInflatedPayload())
                                        .isTrue());
        assertThat(table.length).isLessThan(303);
    }
}
