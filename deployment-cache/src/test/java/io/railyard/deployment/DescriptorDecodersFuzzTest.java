package io.railyard.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.railyard.topology.JobGraph;
import java.lang.management.ManagementFactory;

/**
 * Coverage-guided fuzzing (Jazzer) of the descriptor decoders — {@link GroupDescriptors}, {@link
 * TaskDeploymentDescriptor} and {@link WorkerTable}, all behind {@link Envelope} — for Reliability
 * row 14: any input either decodes (and then re-encodes to the same value) or fails with {@link
 * CorruptDescriptorException} naming the byte and the field, on one line; nothing else comes out,
 * and no forged length makes a decoder allocate more than the input could describe.
 *
 * <p>The input's last byte picks the decoder (mod 3) and how the rest reaches it (÷ 3, mod 3): as
 * framed bytes, where the checksum must catch what the fuzzer changed; or as a payload this test
 * frames with a valid checksum, uncompressed or deflated, so that the fuzzer's changes reach the
 * parsers. The seeds (in {@code DescriptorDecodersFuzzTestInputs/}) are real encodings of each kind
 * in each framing, and a few truncated ones. Without {@code JAZZER_FUZZ} the seeds run as
 * regression tests; the {@code fuzz-descriptors} surefire execution fuzzes for real.
 */
class DescriptorDecodersFuzzTest {
    /** Slack for what any decode allocates whatever its input: readers, builders, a message. */
    private static final long FIXED_ALLOCATION_BYTES = 64 << 10;

    /** Bytes a decoder may allocate per input byte: objects and arrays the input describes. */
    private static final long ALLOCATION_PER_INPUT_BYTE = 64;

    /** The most a deflated payload expands (Envelope refuses more), plus per-byte objects. */
    private static final long INFLATED_ALLOCATION_PER_INPUT_BYTE = 1032 + 64;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** The three decoders, by the selector byte mod 3. */
    enum Kind {
        GROUP(GroupDescriptors.MAGIC, GroupDescriptors.VERSION),
        TASK(TaskDeploymentDescriptor.MAGIC, TaskDeploymentDescriptor.VERSION),
        WORKERS(WorkerTable.MAGIC, WorkerTable.VERSION);

        final int magic;
        final int version;

        Kind(int magic, int version) {
            this.magic = magic;
            this.version = version;
        }
    }

    /** How the input reaches the decoder, by the selector byte ÷ 3 mod 3. */
    enum Framing {
        AS_GIVEN,
        SEALED,
        SEALED_DEFLATE
    }

    @FuzzTest(maxDuration = "10s")
    void decode_anyInput_valueThatRoundTripsOrCorruptDescriptorException(FuzzedDataProvider data) {
        int selector = data.consumeByte() & 0xFF;
        Kind kind = Kind.values()[selector % 3];
        Framing framing = Framing.values()[selector / 3 % 3];
        byte[] input = data.consumeRemainingAsBytes();
        byte[] bytes =
                framing == Framing.AS_GIVEN
                        ? input
                        : Envelope.seal(
                                kind.magic,
                                kind.version,
                                input,
                                input.length,
                                framing == Framing.SEALED_DEFLATE);
        Object decoded;
        try {
            decoded = decode(kind, bytes);
        } catch (CorruptDescriptorException e) {
            String where = e.inInflatedPayload() ? " of the inflated payload" : "";
            assertThat(e.getMessage())
                    .startsWith("corrupt descriptor at byte " + e.offset() + where + ", field ")
                    .doesNotContain("\n");
            assertThat(e.offset())
                    .isBetween(0, e.inInflatedPayload() ? Integer.MAX_VALUE : bytes.length);
            assertAllocationBounded(kind, bytes);
            return;
        }
        assertAllocationBounded(kind, bytes);
        assertRoundTrips(kind, decoded);
    }

    /**
     * Decoding {@code bytes} again allocates no more than they could describe. Measured on a repeat
     * when the first decode (the one checked above) was over: a rare path's first run loads
     * classes, which allocates far more than any decode.
     */
    private static void assertAllocationBounded(Kind kind, byte[] bytes) {
        long allocated = allocatedDecoding(kind, bytes);
        if (allocated > allocationBound(bytes)) {
            allocated = allocatedDecoding(kind, bytes);
        }
        assertThat(allocated)
                .as("bytes allocated decoding %s bytes as %s", bytes.length, kind)
                .isLessThanOrEqualTo(allocationBound(bytes));
    }

    private static long allocatedDecoding(Kind kind, byte[] bytes) {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        try {
            decode(kind, bytes);
        } catch (CorruptDescriptorException e) {
            // the outcome is checked by the caller
        }
        return THREADS.getCurrentThreadAllocatedBytes() - before;
    }

    private static Object decode(Kind kind, byte[] bytes) {
        return switch (kind) {
            case GROUP -> GroupDescriptors.decode(bytes);
            case TASK -> TaskDeploymentDescriptor.decode(bytes);
            case WORKERS -> WorkerTable.decode(bytes);
        };
    }

    /** What decoding {@code bytes} may allocate: linear in them, inflation's ratio if deflated. */
    private static long allocationBound(byte[] bytes) {
        boolean deflated = bytes.length > 3 && bytes[3] == Envelope.CODEC_DEFLATE;
        return FIXED_ALLOCATION_BYTES
                + bytes.length
                        * (deflated
                                ? INFLATED_ALLOCATION_PER_INPUT_BYTE
                                : ALLOCATION_PER_INPUT_BYTE);
    }

    /**
     * A decoded value is usable and its own encoding decodes to it again (GroupDescriptors has no
     * encoder of its own values: every accessor answers in range instead).
     */
    private static void assertRoundTrips(Kind kind, Object decoded) {
        switch (kind) {
            case GROUP -> {
                GroupDescriptors group = (GroupDescriptors) decoded;
                assertThat(group.size()).isBetween(0, JobGraph.MAX_PARALLELISM);
                for (int i = 0; i < group.size(); i++) {
                    assertThat(group.worker(i)).isNotNegative();
                    assertThat(group.connectionIndex(i)).isNotNegative();
                    assertThat(group.producerAttempt(i)).isNotNegative();
                }
            }
            case TASK -> {
                TaskDeploymentDescriptor task = (TaskDeploymentDescriptor) decoded;
                assertThat(TaskDeploymentDescriptor.decode(task.encode())).isEqualTo(task);
            }
            case WORKERS -> {
                WorkerTable table = (WorkerTable) decoded;
                assertThat(WorkerTable.decode(table.encode())).isEqualTo(table);
            }
        }
    }
}
