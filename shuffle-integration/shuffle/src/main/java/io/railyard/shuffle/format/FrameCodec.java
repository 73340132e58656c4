package io.railyard.shuffle.format;

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
 * The codec of the one on-disk frame format of every shuffle file (sort data, hash data): it seals
 * and opens frames. A frame is a {@link FrameHeader} (24 bytes, the layout is documented and named
 * there) followed by its stored payload; a frame always fits in one page.
 *
 * <p>The payload of a lane is a stream of records, each a varint length and its bytes; a record may
 * span frames. Lengths are checked against the page before anything is copied or decompressed, the
 * checksum before decompression, and the decompressed length against the declared one (the safe LZ4
 * decompressor writes at most the declared length, into a destination zeroed first). Not
 * thread-safe: one codec per writer and per IO thread. Sealing and opening are O(payload); they
 * allocate nothing when LZ4 runs natively (the JNI library bundled for the usual platforms) on
 * direct or array-backed buffers; lz4-java's pure-Java fallback compressor allocates its hash table
 * (16 KiB) per compressed frame. Frames are packed back to back in a page when they are small (a
 * page then holds several).
 */
public final class FrameCodec {
    /** The lane of data every subpartition reads (broadcast). */
    public static final int BROADCAST_LANE = -1;

    /** Codec id of a payload stored as written. */
    static final int CODEC_NONE = 0;

    /** Codec id of an LZ4 block. */
    static final int CODEC_LZ4 = 1;

    private static final int MIN_COMPRESSIBLE = 64;

    /** What {@link #zero} copies from; never written. */
    private static final byte[] ZEROS = new byte[4096];

    private final int pageSize;
    private final int maxPayload;
    private final @Nullable LZ4Compressor compressor;
    private final LZ4SafeDecompressor decompressor;
    private final CRC32C crc = new CRC32C();
    private final FrameHeader sealing = new FrameHeader();

    /** A codec for frames of {@code options}' page size and compression. */
    public FrameCodec(ShuffleOptions options) {
        this(options, LZ4Factory.fastestInstance().safeDecompressor());
    }

    /** A codec opening LZ4 frames with {@code decompressor} (tests pass a faulty one). */
    FrameCodec(ShuffleOptions options, LZ4SafeDecompressor decompressor) {
        this.pageSize = options.pageSizeBytes();
        this.maxPayload = maxPayload(options);
        boolean lz4 = options.compression() == Compression.LZ4;
        this.compressor = lz4 ? LZ4Factory.fastestInstance().fastCompressor() : null;
        this.decompressor = decompressor;
    }

    /**
     * The largest payload of a frame: what leaves room for the header and, with LZ4, for the
     * codec's worst-case expansion, so a compressed attempt never overruns the scratch page.
     */
    static int maxPayload(ShuffleOptions options) {
        int room = options.pageSizeBytes() - FrameHeader.BYTES;
        if (options.compression() == Compression.NONE) {
            return room;
        }
        // LZ4 worst case: n + n / 255 + 16 bytes.
        return (int) ((room - 16) * 255L / 256L);
    }

    int maxPayload() {
        return maxPayload;
    }

    /** Whether frames are compressed (LZ4): a writer then needs a scratch page. */
    public boolean compresses() {
        return compressor != null;
    }

    /**
     * Seals the frame that starts at {@code base} in {@code page}: its payload is at [base + {@link
     * FrameHeader#BYTES}, + payloadLength); compresses it through {@code scratch} when that saves
     * at least 1/8 and writes the header. Returns the frame's length; leaves the page cleared.
     */
    int seal(
            ByteBuffer page,
            int base,
            int lane,
            int sequence,
            int payloadLength,
            @Nullable ByteBuffer scratch) {
        assert payloadLength >= 0 && payloadLength <= maxPayload;
        int payloadStart = base + FrameHeader.BYTES;
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
        FrameHeader header =
                sealing.wrap(page, base).write(codec, lane, sequence, payloadLength, stored);
        crc.reset();
        header.updateChecksum(crc);
        crc.update(page.limit(payloadStart + stored).position(payloadStart));
        page.clear();
        header.crc((int) crc.getValue());
        return FrameHeader.BYTES + stored;
    }

    /**
     * The length of the whole frame whose header {@code header} views, after checking the magic,
     * version, codec and lengths; or throws naming the field.
     */
    public int frameLength(FrameHeader header, FrameContext at)
            throws CorruptPartitionFileException {
        return frameLength(header, pageSize, at);
    }

    /**
     * {@link #frameLength(FrameHeader, FrameContext)} for frames of {@code pageSize}-byte pages,
     * for a reader that checks frames without opening them (no codec needed). Stateless.
     */
    public static int frameLength(FrameHeader header, int pageSize, FrameContext at)
            throws CorruptPartitionFileException {
        int magic = header.magic();
        if (magic != FrameHeader.MAGIC) {
            throw at.corrupt("bad frame magic 0x" + Integer.toHexString(magic));
        }
        if (header.version() != FrameHeader.VERSION) {
            throw at.corrupt("unknown frame version " + header.version());
        }
        int codec = header.codec();
        if (codec != CODEC_NONE && codec != CODEC_LZ4) {
            throw at.corrupt("unknown codec " + codec);
        }
        int uncompressed = header.uncompressedLength();
        int stored = header.storedLength();
        if (uncompressed < 0 || uncompressed > pageSize - FrameHeader.BYTES) {
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
        return FrameHeader.BYTES + stored;
    }

    /**
     * Verifies the checksum of the frame whose header {@code header} views (checked by {@link
     * #frameLength}) and whose stored payload is {@code stored[position, limit)}, leaving {@code
     * stored} as it was: a reader that uses an uncompressed payload where it lies (a gate reading a
     * resident region in place) opens nothing. O(frame); no allocation.
     *
     * @throws CorruptPartitionFileException naming {@code at} if the checksum does not match
     */
    public void verify(FrameHeader header, ByteBuffer stored, FrameContext at)
            throws CorruptPartitionFileException {
        int storedStart = stored.position();
        int storedEnd = stored.limit();
        crc.reset();
        header.updateChecksum(crc);
        stored.limit(storedEnd).position(storedStart); // the header may share its buffer
        crc.update(stored);
        stored.limit(storedEnd).position(storedStart);
        if ((int) crc.getValue() != header.crc()) {
            throw at.corrupt("frame checksum mismatch");
        }
    }

    /** Whether the frame whose header {@code header} views is stored compressed. */
    public static boolean isCompressed(FrameHeader header) {
        return header.codec() != CODEC_NONE;
    }

    /**
     * Opens the frame whose header {@code header} views (checked by {@link #frameLength}) and whose
     * stored payload is {@code stored[position, limit)}: verifies the checksum, then copies or
     * decompresses the payload into {@code destination} (flipped to the payload). Consumes {@code
     * stored}; leaves the header's buffer cleared. The header and the payload may share one buffer
     * (a frame in a page).
     */
    public void open(FrameHeader header, ByteBuffer stored, ByteBuffer destination, FrameContext at)
            throws CorruptPartitionFileException {
        int storedStart = stored.position();
        int storedEnd = stored.limit();
        crc.reset();
        header.updateChecksum(crc);
        stored.limit(storedEnd).position(storedStart);
        crc.update(stored);
        if ((int) crc.getValue() != header.crc()) {
            throw at.corrupt("frame checksum mismatch");
        }
        int uncompressed = header.uncompressedLength();
        int length = stored.limit() - storedStart;
        destination.clear();
        if (header.codec() == CODEC_NONE) {
            destination.put(stored.position(storedStart));
        } else {
            // The destination is a gate page that held other frames, maybe other partitions'
            // records: zeroed first, so a decoder that leaves bytes unwritten (the CVE-2025-66566
            // class: a forged match copying output not yet written) cannot leak them.
            zero(destination, uncompressed);
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

    /** Zeroes {@code buffer[0, length)}, not moving it. O(length), no allocation. */
    private static void zero(ByteBuffer buffer, int length) {
        for (int at = 0; at < length; at += ZEROS.length) {
            buffer.put(at, ZEROS, 0, Math.min(ZEROS.length, length - at));
        }
    }
}
