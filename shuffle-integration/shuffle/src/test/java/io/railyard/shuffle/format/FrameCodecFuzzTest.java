package io.railyard.shuffle.format;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import io.railyard.topology.PartitionId;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Coverage-guided fuzzing (Jazzer) of the frame codec ({@link FrameCodec}, {@link FrameHeader}) as
 * a reader walks a page of frames packed back to back — Reliability rows 20 and 30. Every frame
 * either opens to exactly its declared payload, which seals and opens again to the same bytes, or
 * fails with {@link CorruptPartitionFileException} naming the file and the frame's offset, on one
 * line; nothing else (no buffer overflow, no LZ4 exception). An opened payload is the same whether
 * the destination held garbage or zeros: no stale byte of an earlier frame shows through (the
 * CVE-2025-66566 class).
 *
 * <p>The input's last byte picks the codec (bit 0: LZ4 pages, else uncompressed) and whether this
 * test rewrites each frame's CRC32C before opening it (bit 1), so that the fuzzer's changes reach
 * the length checks and the decompressor instead of stopping at the checksum. The rest is the page
 * (at most {@value #PAGE_BYTES} bytes). Seeds in {@code FrameCodecFuzzTestInputs/}: pages sealed by
 * the codec, compressed and not, one and several frames, empty and truncated ones.
 */
class FrameCodecFuzzTest {
    static final int PAGE_BYTES = 1024;
    private static final Path FILE = Path.of("/fuzz/p.data");

    private final FrameCodec plain = new FrameCodec(options(Compression.NONE));
    private final FrameCodec lz4 = new FrameCodec(options(Compression.LZ4));
    private final FrameContext at = new FrameContext();
    private final FrameHeader header = new FrameHeader();
    private final ByteBuffer garbage = ByteBuffer.allocateDirect(PAGE_BYTES);
    private final ByteBuffer zeroed = ByteBuffer.allocate(PAGE_BYTES);
    private final ByteBuffer resealed = ByteBuffer.allocateDirect(PAGE_BYTES);
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(PAGE_BYTES);

    static ShuffleOptions options(Compression compression) {
        return ShuffleOptions.builder().pageSizeBytes(PAGE_BYTES).compression(compression).build();
    }

    @FuzzTest(maxDuration = "10s")
    void open_anyPage_payloadsThatResealOrCorruptPartitionFile(FuzzedDataProvider data) {
        int selector = data.consumeByte() & 0xFF;
        FrameCodec codec = (selector & 1) != 0 ? lz4 : plain;
        boolean fixChecksums = (selector & 2) != 0;
        byte[] bytes = data.consumeRemainingAsBytes();
        ByteBuffer page = ByteBuffer.wrap(Arrays.copyOf(bytes, Math.min(bytes.length, PAGE_BYTES)));
        int position = 0;
        while (page.capacity() - position >= FrameHeader.BYTES) {
            header.wrap(page, position);
            at.at(new PartitionId(0, 0), FILE, position);
            int length;
            try {
                length = codec.frameLength(header, at);
            } catch (CorruptPartitionFileException e) {
                assertNamesTheFrame(e, position);
                return;
            }
            assertThat(length).isBetween(FrameHeader.BYTES, PAGE_BYTES);
            if (length > page.capacity() - position) {
                return; // runs past the page: the reader's check, not the codec's
            }
            if (fixChecksums) {
                reChecksum(page, position, length);
            }
            if (!openAndReseal(codec, page, position, length)) {
                return;
            }
            position += length;
        }
    }

    /** Opens the frame at {@code position}; true if it opened (and resealed), false if corrupt. */
    private boolean openAndReseal(FrameCodec codec, ByteBuffer page, int position, int length) {
        int lane = header.lane();
        int sequence = header.sequence();
        int declared = header.uncompressedLength();
        fill(garbage, (byte) 0x5A);
        try {
            codec.open(header, stored(page, position, length), garbage, at);
        } catch (CorruptPartitionFileException e) {
            assertNamesTheFrame(e, position);
            return false;
        } finally {
            page.clear();
        }
        assertThat(garbage.remaining()).isEqualTo(declared);
        byte[] payload = new byte[declared];
        garbage.get(payload);
        byte[] again = open(codec, page, position, length, zeroed);
        assertThat(again).as("the same payload into a zeroed destination").isEqualTo(payload);

        FrameCodec sealer = declared <= codec.maxPayload() ? codec : plain;
        resealed.clear().put(FrameHeader.BYTES, payload);
        int sealedLength = sealer.seal(resealed, 0, lane, sequence, declared, scratch);
        FrameHeader view = new FrameHeader().wrap(resealed, 0);
        assertThat(view.lane()).isEqualTo(lane);
        assertThat(view.sequence()).isEqualTo(sequence);
        assertThat(open(sealer, resealed, 0, sealedLength, ByteBuffer.allocate(PAGE_BYTES)))
                .as("the payload sealed again")
                .isEqualTo(payload);
        page.clear(); // opening leaves the limit at the frame's end, as the reader's finally does
        return true;
    }

    /** Opens a frame known to be good into {@code destination}; returns its payload. */
    private byte[] open(
            FrameCodec codec, ByteBuffer page, int position, int length, ByteBuffer destination) {
        FrameHeader view = new FrameHeader().wrap(page, position);
        try {
            assertThat(codec.frameLength(view, at)).isEqualTo(length);
            codec.open(view, stored(page, position, length), destination, at);
        } catch (CorruptPartitionFileException e) {
            throw new AssertionError("a frame that opened once fails to open again", e);
        }
        byte[] payload = new byte[destination.remaining()];
        destination.get(payload);
        return payload;
    }

    /** The stored payload of the frame at {@code position}, in the page itself (as in memory). */
    private static ByteBuffer stored(ByteBuffer page, int position, int length) {
        return page.clear().limit(position + length).position(position + FrameHeader.BYTES);
    }

    private static void assertNamesTheFrame(CorruptPartitionFileException e, int position) {
        assertThat(e.offset()).isEqualTo(position);
        assertThat(e.getMessage())
                .startsWith("partition lost: 'p0.a0': corrupt partition file ")
                .contains(FILE + " at offset " + position + ": ")
                .doesNotContain("\n");
    }

    /** Rewrites the CRC32C of the frame at {@code position}, as a writer would have. */
    static void reChecksum(ByteBuffer page, int position, int length) {
        CRC32C crc = new CRC32C();
        crc.update(
                page.duplicate()
                        .clear()
                        .position(position)
                        .limit(position + FrameHeader.CRC_FIELD_OFFSET));
        crc.update(
                page.duplicate()
                        .clear()
                        .position(position + FrameHeader.BYTES)
                        .limit(position + length));
        page.putInt(position + FrameHeader.CRC_FIELD_OFFSET, (int) crc.getValue());
    }

    private static void fill(ByteBuffer buffer, byte value) {
        buffer.clear();
        while (buffer.hasRemaining()) {
            buffer.put(value);
        }
        buffer.clear();
    }
}
