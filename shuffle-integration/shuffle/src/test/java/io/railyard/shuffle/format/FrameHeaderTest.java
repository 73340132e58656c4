package io.railyard.shuffle.format;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * The frame header view: the on-disk offsets (pinned here with literals, the only place they
 * appear), a round trip at an offset inside a larger buffer, and the checksum coverage.
 */
class FrameHeaderTest {
    private static final int AT = 13;

    @Test
    void offsets_areTheDocumentedOnDiskLayout() {
        assertThat(FrameHeader.MAGIC_FIELD_OFFSET).isEqualTo(0);
        assertThat(FrameHeader.VERSION_FIELD_OFFSET).isEqualTo(2);
        assertThat(FrameHeader.CODEC_FIELD_OFFSET).isEqualTo(3);
        assertThat(FrameHeader.LANE_FIELD_OFFSET).isEqualTo(4);
        assertThat(FrameHeader.SEQUENCE_FIELD_OFFSET).isEqualTo(8);
        assertThat(FrameHeader.UNCOMPRESSED_LENGTH_FIELD_OFFSET).isEqualTo(12);
        assertThat(FrameHeader.STORED_LENGTH_FIELD_OFFSET).isEqualTo(16);
        assertThat(FrameHeader.CRC_FIELD_OFFSET).isEqualTo(20);
        assertThat(FrameHeader.BYTES).isEqualTo(24);
        assertThat(FrameHeader.MAGIC).isEqualTo(0x5279);
        assertThat(FrameHeader.VERSION).isEqualTo(1);
    }

    @Test
    void write_thenRead_roundTripsAtAnOffsetAndTouchesNothingElse() {
        ByteBuffer buffer = ByteBuffer.allocate(64);
        Arrays.fill(buffer.array(), (byte) 0x5A);
        FrameHeader header = new FrameHeader().wrap(buffer, AT);
        header.write(FrameCodec.CODEC_LZ4, -1, 123_456, 30_000, 12_345).crc(0xCAFEBABE);

        assertThat(header.offset()).isEqualTo(AT);
        assertThat(header.magic()).isEqualTo(FrameHeader.MAGIC);
        assertThat(header.version()).isEqualTo(FrameHeader.VERSION);
        assertThat(header.codec()).isEqualTo(FrameCodec.CODEC_LZ4);
        assertThat(header.lane()).isEqualTo(FrameCodec.BROADCAST_LANE);
        assertThat(header.sequence()).isEqualTo(123_456);
        assertThat(header.uncompressedLength()).isEqualTo(30_000);
        assertThat(header.storedLength()).isEqualTo(12_345);
        assertThat(header.crc()).isEqualTo(0xCAFEBABE);
        // The same bytes read at literal positions: big-endian, at the documented offsets.
        assertThat(buffer.getShort(AT) & 0xFFFF).isEqualTo(0x5279);
        assertThat(buffer.get(AT + 2)).isEqualTo((byte) 1);
        assertThat(buffer.get(AT + 3)).isEqualTo((byte) 1);
        assertThat(buffer.getInt(AT + 4)).isEqualTo(-1);
        assertThat(buffer.getInt(AT + 8)).isEqualTo(123_456);
        assertThat(buffer.getInt(AT + 12)).isEqualTo(30_000);
        assertThat(buffer.getInt(AT + 16)).isEqualTo(12_345);
        assertThat(buffer.getInt(AT + 20)).isEqualTo(0xCAFEBABE);
        for (int i = 0; i < buffer.capacity(); i++) {
            if (i < AT || i >= AT + FrameHeader.BYTES) {
                assertThat(buffer.get(i)).as("byte %s", i).isEqualTo((byte) 0x5A);
            }
        }
        assertThat(buffer.position()).isZero();
        assertThat(buffer.limit()).isEqualTo(64);
    }

    @Test
    void updateChecksum_coversTheBytesBeforeTheCrcFieldAndClearsTheBuffer() {
        ByteBuffer buffer = ByteBuffer.allocate(64);
        FrameHeader header = new FrameHeader().wrap(buffer, AT);
        header.write(FrameCodec.CODEC_NONE, 7, 3, 100, 100).crc(0x11111111);
        buffer.position(40).limit(50);
        CRC32C viaView = new CRC32C();
        header.updateChecksum(viaView);
        CRC32C expected = new CRC32C();
        expected.update(buffer.array(), AT, 20);
        assertThat(viaView.getValue()).isEqualTo(expected.getValue());
        assertThat(buffer.position()).isZero();
        assertThat(buffer.limit()).isEqualTo(64);
    }

    @Test
    void rewrap_readsTheNextFrameWithTheSameView() {
        FrameCodec codec =
                new FrameCodec(
                        ShuffleOptions.builder()
                                .pageSizeBytes(1024)
                                .compression(Compression.NONE)
                                .build());
        ByteBuffer page = ByteBuffer.allocateDirect(1024);
        int first = codec.seal(page, 0, 2, 0, 10, null);
        int second = codec.seal(page, first, 2, 1, 20, null);
        FrameHeader header = new FrameHeader();
        assertThat(header.wrap(page, 0).sequence()).isZero();
        assertThat(header.storedLength()).isEqualTo(10);
        assertThat(header.wrap(page, first).sequence()).isEqualTo(1);
        assertThat(header.storedLength()).isEqualTo(20);
        assertThat(header.lane()).isEqualTo(2);
        assertThat(first + second).isEqualTo(2 * FrameHeader.BYTES + 30);
    }
}
