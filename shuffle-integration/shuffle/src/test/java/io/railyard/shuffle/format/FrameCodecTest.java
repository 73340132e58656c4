package io.railyard.shuffle.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import io.railyard.topology.PartitionId;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The frame format's checks (ARCHITECTURE.md, Reliability rows 20 and 30): nothing bad is ever
 * decoded, a decoder never writes past the declared length, and the destination is zeroed before
 * decompression.
 */
class FrameCodecTest {
    private static final ShuffleOptions LZ4 =
            ShuffleOptions.builder().pageSizeBytes(1024).compression(Compression.LZ4).build();

    /** What a reused page still holds before a frame is decoded into it. */
    private static final byte STALE = (byte) 0xAB;

    private final FrameCodec codec = new FrameCodec(LZ4);
    private final FrameContext at =
            new FrameContext().at(new PartitionId(0, 0), Path.of("/x/p.data"), 4096);

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
        return open(codec, frame, ByteBuffer.allocate(1024));
    }

    /** Opens {@code frame} with {@code opener} into {@code destination} (a page reused). */
    private ByteBuffer open(FrameCodec opener, ByteBuffer frame, ByteBuffer destination)
            throws CorruptPartitionFileException {
        ByteBuffer headerBytes = ByteBuffer.allocate(FrameHeader.BYTES);
        headerBytes.put(0, frame, 0, FrameHeader.BYTES);
        FrameHeader header = new FrameHeader().wrap(headerBytes, 0);
        int length = opener.frameLength(header, at);
        ByteBuffer stored = frame.duplicate().position(FrameHeader.BYTES).limit(length);
        opener.open(header, stored, destination, at);
        return destination;
    }

    /** A 1 KiB page still holding {@link #STALE} bytes: another partition's data, say. */
    private static ByteBuffer stalePage() {
        ByteBuffer page = ByteBuffer.allocateDirect(1024);
        for (int i = 0; i < page.capacity(); i++) {
            page.put(i, STALE);
        }
        return page;
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

    /**
     * Reliability row 30: a payload that decodes to more than its header declares (600 bytes,
     * declared 500) is rejected, and the decoder writes nothing past the declared length: the
     * destination is bounded by the header, not by the page.
     */
    @Test
    void open_lz4OutputLongerThanDeclared_rejectedNothingWrittenPastTheDeclaredLength() {
        ByteBuffer frame = seal(compressible());
        frame.putInt(FrameHeader.UNCOMPRESSED_LENGTH_FIELD_OFFSET, 500);
        reChecksum(frame, frame.getInt(FrameHeader.STORED_LENGTH_FIELD_OFFSET));
        ByteBuffer page = stalePage();
        assertThatThrownBy(() -> open(codec, frame, page))
                .isInstanceOf(CorruptPartitionFileException.class)
                .hasMessageContaining("/x/p.data at offset 4096")
                .hasMessageContaining("LZ4 payload");
        for (int i = 500; i < page.capacity(); i++) {
            assertThat(page.get(i)).as("byte %s past the declared length", i).isEqualTo(STALE);
        }
    }

    /**
     * Reliability row 30, the CVE-2025-66566 class: a decoder that reports the declared length but
     * leaves part of the destination unwritten (as a forged match copying output not yet written
     * did in lz4-java's Java decoders before 1.10.1) shows zeros, never the stale bytes of the page
     * it decodes into: the codec zeroes the destination first.
     */
    @Test
    void open_decoderLeavingBytesUnwritten_destinationWasZeroedNoStaleByteLeaks() throws Exception {
        FrameCodec leaky = new FrameCodec(LZ4, new UnwritingDecompressor());
        ByteBuffer payload = open(leaky, seal(compressible()), stalePage());
        assertThat(payload.remaining()).isEqualTo(compressible().length);
        for (int i = 0; i < payload.remaining(); i++) {
            assertThat(payload.get(i)).as("payload byte %s", i).isEqualTo((byte) 0);
        }
    }

    /**
     * Reliability row 30 with the real decoders (native and Java): a frame with a valid checksum
     * whose LZ4 block copies a match at offset 0 — bytes of the destination not yet written —
     * either is rejected as corrupt or decodes without a single stale byte of the page.
     */
    @ParameterizedTest
    @ValueSource(strings = {"native", "java"})
    void open_forgedMatchAtOffsetZero_rejectedOrNoStaleByte(String instance) throws Exception {
        LZ4Factory factory =
                instance.equals("native") ? LZ4Factory.nativeInstance() : LZ4Factory.safeInstance();
        FrameCodec opener = new FrameCodec(LZ4, factory.safeDecompressor());
        // One sequence: literal 'A', then a 4-byte match at offset 0; then 5 last literals.
        byte[] block = {0x10, 'A', 0, 0, 0x50, 'b', 'c', 'd', 'e', 'f'};
        int declared = 1 + 4 + 5;
        ByteBuffer frame = ByteBuffer.allocate(FrameHeader.BYTES + block.length);
        new FrameHeader().wrap(frame, 0).write(FrameCodec.CODEC_LZ4, 3, 0, declared, block.length);
        frame.put(FrameHeader.BYTES, block);
        reChecksum(frame, block.length);
        ByteBuffer page = stalePage();
        ByteBuffer payload;
        try {
            payload = open(opener, frame, page);
        } catch (CorruptPartitionFileException rejected) {
            assertThat(rejected).hasMessageContaining("LZ4 payload does not decode");
            return; // nothing reaches a consumer
        }
        assertThat(payload.remaining()).isEqualTo(declared);
        for (int i = 0; i < declared; i++) {
            assertThat(payload.get(i)).as("payload byte %s", i).isNotEqualTo(STALE);
        }
    }

    /** A decoder that writes nothing and claims it produced every byte asked for. */
    private static final class UnwritingDecompressor extends LZ4SafeDecompressor {
        @Override
        public int decompress(
                byte[] src, int srcOff, int srcLen, byte[] dest, int destOff, int maxDestLen) {
            return maxDestLen;
        }

        @Override
        public int decompress(
                ByteBuffer src,
                int srcOff,
                int srcLen,
                ByteBuffer dest,
                int destOff,
                int maxDestLen) {
            return maxDestLen;
        }
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
