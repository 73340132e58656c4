package io.railyard.shuffle.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * The frame format's checks (ARCHITECTURE.md, Reliability rows 20 and 30): nothing bad is ever
 * decoded.
 */
class FrameCodecTest {
    private static final ShuffleOptions LZ4 =
            ShuffleOptions.builder().pageSizeBytes(1024).compression(Compression.LZ4).build();
    private final FrameCodec codec = new FrameCodec(LZ4);
    private final FrameContext at = new FrameContext().at("p", null, Path.of("/x/p.data"), 4096);

    /** A sealed frame of {@code payload} (compressible), copied out of its page. */
    private ByteBuffer seal(byte[] payload) {
        ByteBuffer page = ByteBuffer.allocateDirect(1024);
        ByteBuffer scratch = ByteBuffer.allocateDirect(1024);
        page.put(FrameHeader.BYTES, payload);
        int length = codec.seal(page, 0, 3, 7, payload.length, scratch);
        ByteBuffer frame = ByteBuffer.allocate(length);
        frame.put(0, page, 0, length);
        return frame;
    }

    private ByteBuffer open(ByteBuffer frame) throws CorruptPartitionFileException {
        ByteBuffer headerBytes = ByteBuffer.allocate(FrameHeader.BYTES);
        headerBytes.put(0, frame, 0, FrameHeader.BYTES);
        FrameHeader header = new FrameHeader().wrap(headerBytes, 0);
        int length = codec.frameLength(header, at);
        ByteBuffer stored = frame.duplicate().position(FrameHeader.BYTES).limit(length);
        ByteBuffer destination = ByteBuffer.allocate(1024);
        codec.open(header, stored, destination, at);
        return destination;
    }

    private static byte[] compressible() {
        byte[] payload = new byte[600];
        Arrays.fill(payload, (byte) 'x');
        return payload;
    }

    /** Rewrites the CRC so a forged header reaches the later checks. */
    private static void reChecksum(ByteBuffer frame, int storedLength) {
        CRC32C crc = new CRC32C();
        crc.update(frame.duplicate().position(0).limit(FrameHeader.CRC_FIELD_OFFSET));
        crc.update(
                frame.duplicate()
                        .position(FrameHeader.BYTES)
                        .limit(FrameHeader.BYTES + storedLength));
        frame.putInt(FrameHeader.CRC_FIELD_OFFSET, (int) crc.getValue());
    }

    @Test
    void sealThenOpen_roundTripsAndCompressesWhenItPays() throws Exception {
        ByteBuffer frame = seal(compressible());
        assertThat(frame.get(FrameHeader.CODEC_FIELD_OFFSET))
                .isEqualTo((byte) FrameCodec.CODEC_LZ4);
        assertThat(frame.limit()).isLessThan(100);
        ByteBuffer payload = open(frame);
        byte[] bytes = new byte[payload.remaining()];
        payload.get(bytes);
        assertThat(bytes).isEqualTo(compressible());
    }

    @Test
    void open_flippedPayloadBit_checksumMismatchNamingFileAndOffset() {
        ByteBuffer frame = seal(compressible());
        frame.put(FrameHeader.BYTES + 2, (byte) (frame.get(FrameHeader.BYTES + 2) ^ 1));
        assertThatThrownBy(() -> open(frame))
                .isInstanceOf(CorruptPartitionFileException.class)
                .hasMessageContaining("/x/p.data at offset 4096")
                .hasMessageContaining("checksum");
    }

    @Test
    void frameLength_declaredPayloadBeyondThePage_rejectedBeforeAnyCopy() {
        ByteBuffer frame = seal(compressible());
        frame.putInt(FrameHeader.UNCOMPRESSED_LENGTH_FIELD_OFFSET, 5000);
        reChecksum(frame, frame.getInt(FrameHeader.STORED_LENGTH_FIELD_OFFSET));
        assertThatThrownBy(() -> open(frame))
                .isInstanceOf(CorruptPartitionFileException.class)
                .hasMessageContaining("exceeds the page");
    }

    @Test
    void open_lz4OutputShorterThanDeclared_rejected() {
        ByteBuffer frame = seal(compressible());
        // declared 700, the payload decodes to 600
        frame.putInt(FrameHeader.UNCOMPRESSED_LENGTH_FIELD_OFFSET, 700);
        reChecksum(frame, frame.getInt(FrameHeader.STORED_LENGTH_FIELD_OFFSET));
        assertThatThrownBy(() -> open(frame))
                .isInstanceOf(CorruptPartitionFileException.class)
                .hasMessageContaining("LZ4 payload");
    }

    @Test
    void frameLength_badMagicVersionCodecOrStoredLength_rejected() {
        for (int field :
                new int[] {
                    FrameHeader.MAGIC_FIELD_OFFSET,
                    FrameHeader.VERSION_FIELD_OFFSET,
                    FrameHeader.CODEC_FIELD_OFFSET,
                    FrameHeader.STORED_LENGTH_FIELD_OFFSET
                }) {
            ByteBuffer frame = seal(compressible());
            frame.put(field, (byte) (frame.get(field) + 9));
            assertThatThrownBy(() -> open(frame))
                    .as("field at %s", field)
                    .isInstanceOf(CorruptPartitionFileException.class);
        }
    }
}
