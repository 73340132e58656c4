package io.railyard.shuffle.partition;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.ShuffleOptions.Compression;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import org.jspecify.annotations.Nullable;

/**
 * The one on-disk frame format of every shuffle file (sort data, hash data), and the codec that
 * seals and opens frames. A frame always fits in one page.
 *
 * <pre>
 * offset  size  field
 *      0     2  magic 0x5279 ("Ry")
 *      2     1  version (1)
 *      3     1  codec (0 none, 1 lz4)
 *      4     4  lane: the subpartition, or -1 for data every subpartition reads (broadcast)
 *      8     4  sequence: the frame's number within its lane, from 0
 *     12     4  uncompressed payload length
 *     16     4  stored payload length
 *     20     4  CRC32C of bytes [0, 20) and of the stored payload
 *     24     n  stored payload
 * </pre>
 *
 * <p>The payload of a lane is a stream of records, each a varint length and its bytes; a record may
 * span frames. Lengths are checked against the page before anything is copied or decompressed, the
 * checksum before decompression, and the decompressed length against the declared one (the safe LZ4
 * decompressor writes at most the declared length). Not thread-safe: one codec per writer and per
 * IO thread. Sealing and opening allocate nothing. Frames are packed back to back in a page when
 * they are small (a page then holds several).
 */
final class FrameCodec {
    static final int HEADER_BYTES = 24;
    static final int BROADCAST_LANE = -1;
    static final int MAGIC = 0x5279;
    static final int VERSION = 1;
    static final int CODEC_NONE = 0;
    static final int CODEC_LZ4 = 1;
    private static final int CRC_COVERED_HEADER = 20;
    private static final int MIN_COMPRESSIBLE = 64;

    private final int pageSize;
    private final int maxPayload;
    private final @Nullable LZ4Compressor compressor;
    private final LZ4SafeDecompressor decompressor;
    private final CRC32C crc = new CRC32C();

    FrameCodec(ShuffleOptions options) {
        this.pageSize = options.pageSizeBytes();
        this.maxPayload = maxPayload(options);
        boolean lz4 = options.compression() == Compression.LZ4;
        LZ4Factory factory = LZ4Factory.fastestInstance();
        this.compressor = lz4 ? factory.fastCompressor() : null;
        this.decompressor = factory.safeDecompressor();
    }

    /**
     * The largest payload of a frame: what leaves room for the header and, with LZ4, for the
     * codec's worst-case expansion, so a compressed attempt never overruns the scratch page.
     */
    static int maxPayload(ShuffleOptions options) {
        int room = options.pageSizeBytes() - HEADER_BYTES;
        if (options.compression() == Compression.NONE) {
            return room;
        }
        // LZ4 worst case: n + n / 255 + 16 bytes.
        return (int) ((room - 16) * 255L / 256L);
    }

    int maxPayload() {
        return maxPayload;
    }

    boolean compresses() {
        return compressor != null;
    }

    /**
     * Seals the frame that starts at {@code base} in {@code page}: its payload is at [base + {@link
     * #HEADER_BYTES}, + payloadLength); compresses it through {@code scratch} when that saves at
     * least 1/8 and writes the header. Returns the frame's length; leaves the page cleared.
     */
    int seal(
            ByteBuffer page,
            int base,
            int lane,
            int sequence,
            int payloadLength,
            @Nullable ByteBuffer scratch) {
        assert payloadLength >= 0 && payloadLength <= maxPayload;
        int payloadStart = base + HEADER_BYTES;
        int stored = payloadLength;
        int codec = CODEC_NONE;
        if (compressor != null && scratch != null && payloadLength >= MIN_COMPRESSIBLE) {
            int compressed;
            try {
                compressed =
                        compressor.compress(
                                page, payloadStart, payloadLength, scratch, 0, scratch.capacity());
            } catch (LZ4Exception e) {
                throw new IllegalStateException("LZ4 worst case exceeded the page", e);
            }
            if (compressed <= payloadLength - payloadLength / 8) {
                page.put(payloadStart, scratch, 0, compressed);
                stored = compressed;
                codec = CODEC_LZ4;
            }
        }
        page.putShort(base, (short) MAGIC);
        page.put(base + 2, (byte) VERSION);
        page.put(base + 3, (byte) codec);
        page.putInt(base + 4, lane);
        page.putInt(base + 8, sequence);
        page.putInt(base + 12, payloadLength);
        page.putInt(base + 16, stored);
        crc.reset();
        crc.update(page.clear().position(base).limit(base + CRC_COVERED_HEADER));
        crc.update(page.limit(payloadStart + stored).position(payloadStart));
        page.clear();
        page.putInt(base + CRC_COVERED_HEADER, (int) crc.getValue());
        return HEADER_BYTES + stored;
    }

    /**
     * The length of the whole frame whose header is in {@code header[0, 24)}, after checking the
     * magic, version, codec and lengths; or throws naming the field.
     */
    int frameLength(ByteBuffer header, FrameContext at) throws CorruptPartitionFileException {
        int magic = header.getShort(0) & 0xFFFF;
        if (magic != MAGIC) {
            throw at.corrupt("bad frame magic 0x" + Integer.toHexString(magic));
        }
        if (header.get(2) != VERSION) {
            throw at.corrupt("unknown frame version " + header.get(2));
        }
        int codec = header.get(3);
        if (codec != CODEC_NONE && codec != CODEC_LZ4) {
            throw at.corrupt("unknown codec " + codec);
        }
        int uncompressed = header.getInt(12);
        int stored = header.getInt(16);
        if (uncompressed < 0 || uncompressed > pageSize - HEADER_BYTES) {
            throw at.corrupt("declared payload length " + uncompressed + " exceeds the page");
        }
        if (stored < 0
                || stored > uncompressed
                || (codec == CODEC_NONE && stored != uncompressed)) {
            throw at.corrupt(
                    "stored length "
                            + stored
                            + " inconsistent with payload length "
                            + uncompressed);
        }
        return HEADER_BYTES + stored;
    }

    /**
     * Opens the frame whose header is in {@code header} and whose stored payload is {@code
     * stored[position, limit)}: verifies the checksum, then copies or decompresses the payload into
     * {@code destination} (flipped to the payload). Consumes {@code stored}.
     */
    void open(ByteBuffer header, ByteBuffer stored, ByteBuffer destination, FrameContext at)
            throws CorruptPartitionFileException {
        crc.reset();
        crc.update(header.position(0).limit(CRC_COVERED_HEADER));
        int storedStart = stored.position();
        crc.update(stored);
        header.clear();
        if ((int) crc.getValue() != header.getInt(CRC_COVERED_HEADER)) {
            throw at.corrupt("frame checksum mismatch");
        }
        int uncompressed = header.getInt(12);
        int length = stored.limit() - storedStart;
        destination.clear();
        if (header.get(3) == CODEC_NONE) {
            destination.put(stored.position(storedStart));
        } else {
            int produced;
            try {
                produced =
                        decompressor.decompress(
                                stored, storedStart, length, destination, 0, uncompressed);
            } catch (LZ4Exception e) {
                throw at.corrupt("LZ4 payload does not decode: " + e.getMessage());
            }
            if (produced != uncompressed) {
                throw at.corrupt(
                        "LZ4 payload decoded to " + produced + " bytes, declared " + uncompressed);
            }
            destination.position(uncompressed);
        }
        destination.flip();
    }
}
