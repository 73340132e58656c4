package io.railyard.transport;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Coverage-guided fuzzing (Jazzer) of {@link FrameDecoder}, the first code a peer's bytes reach:
 * cut into chunks anywhere, any bytes decode to exactly the frames a naive reader finds (header by
 * header, each checked by {@link FrameDecoder#check}), and where that reader finds a header that
 * fails a check the decoder throws {@link ProtocolException} and yields nothing after it. No frame
 * it yields is longer than its type allows for a 4 KiB page: a peer's length is checked before a
 * byte of its body is buffered.
 *
 * <p>Input: a byte of chunk size (1 + b), then the bytes. Seeds in {@code
 * FrameDecoderFuzzTestInputs/}: valid frames of every type, a wrong magic, a huge length.
 */
class FrameDecoderFuzzTest {
    private static final int PAGE = 4096;

    @FuzzTest(maxDuration = "10s")
    void decode_anyBytes_theNaiveReadersFramesOrAProtocolException(FuzzedDataProvider data) {
        int chunk = 1 + data.consumeInt(0, 255);
        byte[] bytes = data.consumeRemainingAsBytes();
        Expected expected = naive(bytes);

        EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(PAGE));
        List<Frame> frames = new ArrayList<>();
        ProtocolException thrown = null;
        try {
            for (int from = 0; from < bytes.length && thrown == null; from += chunk) {
                int length = Math.min(chunk, bytes.length - from);
                try {
                    channel.writeInbound(Unpooled.wrappedBuffer(bytes, from, length));
                } catch (DecoderException e) {
                    assertThat(e.getCause()).isInstanceOf(ProtocolException.class);
                    thrown = (ProtocolException) e.getCause();
                }
                Object out;
                while ((out = channel.readInbound()) != null) {
                    frames.add((Frame) out);
                }
            }
            assertThat(frames).hasSize(expected.frames.size());
            for (int i = 0; i < frames.size(); i++) {
                Frame frame = frames.get(i);
                byte[] body = new byte[frame.body().readableBytes()];
                frame.body().readBytes(body);
                assertThat(frame.type()).isEqualTo(expected.types.get(i));
                assertThat(body).isEqualTo(expected.frames.get(i));
                assertThat(body.length).isLessThanOrEqualTo(Wire.maxBody(frame.type(), PAGE));
            }
            if (expected.violation != null) {
                assertThat(thrown).as("a violation: %s", expected.violation).isNotNull();
                assertThat(thrown).hasMessage(expected.violation);
            } else {
                assertThat(thrown).isNull();
            }
        } finally {
            for (Frame frame : frames) {
                frame.body().release();
            }
            channel.finishAndReleaseAll();
        }
    }

    /** What a reader that sees all the bytes at once finds. */
    private static final class Expected {
        final List<byte[]> frames = new ArrayList<>();
        final List<Byte> types = new ArrayList<>();
        String violation;
    }

    private static Expected naive(byte[] bytes) {
        Expected expected = new Expected();
        ByteBuffer in = ByteBuffer.wrap(bytes);
        while (in.remaining() >= Wire.HEADER) {
            int magic = in.getInt(in.position());
            byte type = in.get(in.position() + 4);
            int length = in.getInt(in.position() + 5);
            String problem = FrameDecoder.check(magic, type, length, PAGE);
            if (problem != null) {
                expected.violation = problem;
                return expected;
            }
            if (in.remaining() < Wire.HEADER + length) {
                return expected;
            }
            in.position(in.position() + Wire.HEADER);
            byte[] body = new byte[length];
            in.get(body);
            expected.frames.add(body);
            expected.types.add(type);
        }
        return expected;
    }
}
