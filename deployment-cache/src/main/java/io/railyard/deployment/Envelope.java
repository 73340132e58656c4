package io.railyard.deployment;

import java.util.Arrays;
import java.util.zip.CRC32C;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * The frame around every encoded descriptor part: {@code magic (2 bytes) | version (1) | codec (1)
 * | [uncompressed length, varint, if compressed] | payload | CRC32C of all before it (4, big
 * endian)}.
 *
 * <p>The codec is JDK {@link Deflater} (raw deflate), used only when it makes the payload smaller.
 * Chosen over lz4-java and zstd-jni: no native code on input that crosses the network, no extra
 * dependency, and a ratio at least as good as LZ4 on these small, repetitive payloads; its speed
 * matters little because a group is encoded once per producer attempt and decoded once per worker.
 * The checksum is verified before anything is decompressed, and the declared uncompressed length is
 * bounded by the caller before the output buffer is allocated.
 */
final class Envelope {
    static final int CODEC_NONE = 0;
    static final int CODEC_DEFLATE = 1;
    private static final int CRC_BYTES = 4;
    private static final int MAX_DEFLATE_RATIO = 1032;

    /**
     * A payload longer than this many bytes is deflated only if its first {@value} bytes deflate to
     * at most 7/8 of them ({@link #samplePays}): a payload without redundancy (a bit-packed column
     * of workers placed at random) costs a deflate of the sample, 2 % of a 1,000,000-partition
     * group, instead of ~20 ns a byte for all of it to gain nothing. A payload that is redundant
     * only past its first {@value} bytes is shipped uncompressed.
     */
    static final int SAMPLE_BYTES = 64 * 1024;

    /** The inflation output's first size, at least (it grows with what inflates). */
    private static final int FIRST_OUTPUT_BYTES = 64 * 1024;

    private Envelope() {}

    /**
     * Frames {@code payload[0, length)} as format {@code version} of {@code magic}; compresses it
     * when {@code compress}, its sample pays ({@link #SAMPLE_BYTES}) and it pays.
     */
    static byte[] seal(int magic, int version, byte[] payload, int length, boolean compress) {
        if (compress
                && (length <= SAMPLE_BYTES || samplePays(deflate(payload, SAMPLE_BYTES).length))) {
            byte[] deflated = deflate(payload, length);
            if (compressionPays(deflated.length, length)) {
                return frame(magic, version, CODEC_DEFLATE, length, deflated, deflated.length);
            }
        }
        return frame(magic, version, CODEC_NONE, length, payload, length);
    }

    /**
     * Starts an uncompressed frame of format {@code version} of {@code magic} in the empty {@code
     * out}: the payload is written after it, and {@link #finishUncompressed} seals it. Together the
     * two give the bytes of {@code seal(magic, version, payload, length, false)} with one copy of
     * the payload fewer, for the millions of small task descriptors of a large deployment.
     */
    static void beginUncompressed(ByteWriter out, int magic, int version) {
        out.writeByte(magic >>> 8);
        out.writeByte(magic);
        out.writeByte(version);
        out.writeByte(CODEC_NONE);
    }

    /** Seals the frame {@link #beginUncompressed} began: its CRC32C, and the bytes, exactly. */
    static byte[] finishUncompressed(ByteWriter out) {
        out.writeInt(checksum(out.buffer(), out.size()));
        return out.toByteArray();
    }

    /** The CRC32C of {@code bytes[0, length)}, as the frame stores it. O(length). */
    private static int checksum(byte[] bytes, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, length);
        return (int) crc.getValue();
    }

    /**
     * Whether a payload longer than {@link #SAMPLE_BYTES}, whose first {@link #SAMPLE_BYTES} bytes
     * deflate alone to {@code deflatedSampleLength} bytes, is deflated at all: when they shrink to
     * 7/8 or less.
     */
    static boolean samplePays(int deflatedSampleLength) {
        return deflatedSampleLength <= SAMPLE_BYTES - SAMPLE_BYTES / 8;
    }

    /**
     * Whether a payload of {@code length} bytes that deflates to {@code deflatedLength} is shipped
     * deflated: only when it is smaller, the uncompressed length's varint included.
     */
    static boolean compressionPays(int deflatedLength, int length) {
        return deflatedLength + 5 < length; // 5: the varint of the uncompressed length
    }

    /**
     * Frames {@code body[0, bodyLength)}, a payload of {@code length} bytes as {@code codec}
     * (CODEC_NONE: the payload itself) as format {@code version} of {@code magic}. O(bodyLength);
     * allocates the frame.
     */
    static byte[] frame(
            int magic, int version, int codec, int length, byte[] body, int bodyLength) {
        int header = 4;
        if (codec == CODEC_DEFLATE) {
            for (int v = length; (v & ~0x7F) != 0; v >>>= 7) {
                header++;
            }
            header++;
        }
        // Sized exactly and written in place: one allocation and one copy of the body, which
        // matters for the millions of small task descriptors of a large deployment.
        byte[] out = new byte[header + bodyLength + CRC_BYTES];
        out[0] = (byte) (magic >>> 8);
        out[1] = (byte) magic;
        out[2] = (byte) version;
        out[3] = (byte) codec;
        if (codec == CODEC_DEFLATE) {
            int at = 4;
            int v = length;
            while ((v & ~0x7F) != 0) {
                out[at++] = (byte) ((v & 0x7F) | 0x80);
                v >>>= 7;
            }
            out[at] = (byte) v;
        }
        System.arraycopy(body, 0, out, header, bodyLength);
        int checksum = checksum(out, header + bodyLength);
        int end = header + bodyLength;
        out[end] = (byte) (checksum >>> 24);
        out[end + 1] = (byte) (checksum >>> 16);
        out[end + 2] = (byte) (checksum >>> 8);
        out[end + 3] = (byte) checksum;
        return out;
    }

    /**
     * Checks the frame and returns a reader over its payload (inflated if needed).
     *
     * @param version the one format version of {@code magic} this reader knows
     * @param maxPayload the largest payload the caller accepts, in bytes
     * @throws CorruptDescriptorException on any mismatch, naming the offset and the field
     */
    static ByteReader open(byte[] bytes, int magic, int version, String what, int maxPayload) {
        ByteReader header = new ByteReader(bytes, 0, bytes.length);
        if (bytes.length < 4 + CRC_BYTES) {
            throw new CorruptDescriptorException(
                    0, what, "too short to be framed: " + bytes.length + " bytes");
        }
        int found = (header.readByte("magic") << 8) | header.readByte("magic");
        if (found != magic) {
            throw new CorruptDescriptorException(
                    0,
                    "magic",
                    String.format(
                            "expected 0x%04x (%s), found 0x%04x: not a %s",
                            magic, what, found, what));
        }
        int foundVersion = header.readByte("version");
        if (foundVersion != version) {
            throw new CorruptDescriptorException(
                    2,
                    "version",
                    "unknown "
                            + what
                            + " version "
                            + foundVersion
                            + ", this reader knows "
                            + version);
        }
        int bodyEnd = bytes.length - CRC_BYTES;
        int computed = checksum(bytes, bodyEnd);
        int stored = new ByteReader(bytes, bodyEnd, bytes.length).readInt("checksum");
        if (computed != stored) {
            throw new CorruptDescriptorException(
                    bodyEnd,
                    "checksum",
                    String.format("CRC32C mismatch: stored %08x, computed %08x", stored, computed));
        }
        ByteReader body = new ByteReader(bytes, 3, bodyEnd);
        int codec = body.readByte("codec");
        if (codec == CODEC_NONE) {
            return body;
        }
        if (codec != CODEC_DEFLATE) {
            throw new CorruptDescriptorException(3, "codec", "unknown codec " + codec);
        }
        // Deflate expands at most ~1032:1, so a declared length beyond that is forged: refuse it
        // before allocating the output.
        long plausible = (long) (bodyEnd - body.position()) * MAX_DEFLATE_RATIO + 64;
        int declared =
                body.readVarint("uncompressed length", (int) Math.min(maxPayload, plausible));
        return new ByteReader(
                inflate(bytes, body.position(), bodyEnd, declared), 0, declared, true);
    }

    /**
     * The deflater of CODEC_DEFLATE: raw deflate at {@link Deflater#BEST_SPEED}. The caller owns it
     * and must {@link Deflater#end()} it.
     */
    static Deflater newDeflater() {
        return new Deflater(Deflater.BEST_SPEED, true);
    }

    private static byte[] deflate(byte[] payload, int length) {
        Deflater deflater = newDeflater();
        try {
            deflater.setInput(payload, 0, length);
            deflater.finish();
            ByteWriter out = new ByteWriter(length / 2 + 64);
            byte[] chunk = new byte[8192];
            while (!deflater.finished()) {
                int n = deflater.deflate(chunk);
                out.writeBytes(chunk, 0, n);
            }
            return out.toByteArray();
        } finally {
            deflater.end();
        }
    }

    /**
     * Inflates {@code bytes[from, to)} to exactly {@code declared} bytes. The output grows with
     * what inflates (doubling from {@value #FIRST_OUTPUT_BYTES} or 4× the input, up to {@code
     * declared}), never ahead of it to the length the header claims: a forged length costs at most
     * about three times the bytes that really inflate, not the claim.
     */
    private static byte[] inflate(byte[] bytes, int from, int to, int declared) {
        Inflater inflater = new Inflater(true);
        try {
            inflater.setInput(bytes, from, to - from);
            long first = Math.max(FIRST_OUTPUT_BYTES, 4L * (to - from));
            byte[] out = new byte[(int) Math.min(declared, first)];
            int n = 0;
            while (n < declared) {
                if (n == out.length) {
                    out = Arrays.copyOf(out, (int) Math.min(declared, 2L * out.length));
                }
                int got = inflater.inflate(out, n, out.length - n);
                if (got == 0 && (inflater.finished() || inflater.needsInput())) {
                    break;
                }
                n += got;
            }
            if (n != declared || !finishedExactly(inflater)) {
                throw new CorruptDescriptorException(
                        from,
                        "payload",
                        "inflates to "
                                + (n != declared ? n + " bytes" : "more than declared")
                                + ", declared "
                                + declared);
            }
            return out;
        } catch (DataFormatException e) {
            throw new CorruptDescriptorException(from, "payload", "bad deflate data: " + e);
        } finally {
            inflater.end();
        }
    }

    /** True when the deflate stream ended exactly at the declared length. */
    private static boolean finishedExactly(Inflater inflater) throws DataFormatException {
        if (inflater.finished()) {
            return inflater.getRemaining() == 0;
        }
        byte[] probe = new byte[1];
        return inflater.inflate(probe) == 0 && inflater.finished() && inflater.getRemaining() == 0;
    }
}
