package io.railyard.transport;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.format.CorruptPartitionFileException;
import io.railyard.shuffle.format.FrameCodec;
import io.railyard.shuffle.format.FrameContext;
import io.railyard.shuffle.format.FrameHeader;
import io.railyard.topology.PartitionId;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Coverage-guided fuzzing (Jazzer) of {@link FrameOpener}, where a server's FRAMES group — bytes
 * that claim to be a partition file's frames — is opened into a reader's page: whatever the bytes,
 * it writes inside the page only, returns at most the page's room, and fails with {@link
 * ProtocolException} (a group cut inside a frame, a payload beyond the page) or {@link
 * CorruptPartitionFileException} (a frame that fails a check, its checksum included) and nothing
 * else. Bytes it opens are exactly the frames' payloads, back to back.
 *
 * <p>Input: the group's bytes. Seeds in {@code FrameOpenerFuzzTestInputs/}: a hash partition's file
 * as written, with and without LZ4.
 */
class FrameOpenerFuzzTest {
    private static final int PAGE = 4096;
    private static final byte GUARD = (byte) 0xA5;
    private static final PartitionId ID = new PartitionId(3, 1);

    @FuzzTest(maxDuration = "10s")
    void open_anyBytes_writesOnlyItsPageOrFailsTyped(FuzzedDataProvider data) {
        byte[] bytes = data.consumeRemainingAsBytes();
        if (bytes.length < Wire.MIN_FILE_FRAME) {
            return; // the caller refuses a shorter group as a protocol violation
        }
        ShuffleOptions options = ShuffleOptions.builder().pageSizeBytes(PAGE).totalPages(8).build();
        FrameOpener opener =
                new FrameOpener(
                        options, new InetSocketAddress(InetAddress.getLoopbackAddress(), 9));
        ByteBuffer memory = ByteBuffer.allocate(3 * PAGE);
        Arrays.fill(memory.array(), GUARD);
        ByteBuffer page = memory.slice(PAGE, PAGE);
        ByteBuf body = Unpooled.wrappedBuffer(bytes);
        int opened = -1;
        try {
            opened = opener.open(body, bytes.length, ID, 0, page, 0);
        } catch (ProtocolException | CorruptPartitionFileException e) {
            if (e instanceof CorruptPartitionFileException corrupt) {
                assertThat(corrupt.partitionId()).isEqualTo(ID);
            }
        } finally {
            body.release();
        }
        for (int i = 0; i < PAGE; i++) {
            assertThat(memory.get(i)).as("byte %s before the page", i).isEqualTo(GUARD);
            assertThat(memory.get(2 * PAGE + i)).as("byte %s after the page", i).isEqualTo(GUARD);
        }
        assertThat(body.refCnt()).isZero();
        if (opened >= 0) {
            assertThat(opened).isLessThanOrEqualTo(PAGE);
            byte[] payloads = payloads(options, bytes);
            assertThat(Arrays.copyOfRange(memory.array(), PAGE, PAGE + opened)).isEqualTo(payloads);
        }
    }

    /** The frames' payloads, each opened into a buffer of its own and appended. */
    private static byte[] payloads(ShuffleOptions options, byte[] bytes) {
        FrameCodec codec = new FrameCodec(options);
        ByteBuffer frames = ByteBuffer.wrap(bytes);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        FrameContext at = new FrameContext();
        for (int p = 0; p < bytes.length; ) {
            FrameHeader header = new FrameHeader().wrap(frames, p);
            at.at(ID, "the group", p);
            try {
                int length = codec.frameLength(header, at);
                ByteBuffer stored =
                        ByteBuffer.wrap(bytes, p + FrameHeader.BYTES, length - FrameHeader.BYTES);
                ByteBuffer payload = ByteBuffer.allocate(PAGE);
                codec.open(header, stored.slice(), payload, at);
                out.write(payload.array(), 0, payload.limit());
                p += length;
            } catch (CorruptPartitionFileException e) {
                throw new AssertionError("the opener opened what a frame check refuses", e);
            }
        }
        return out.toByteArray();
    }
}
