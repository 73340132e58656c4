package io.railyard.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.railyard.deployment.JobSecret;
import io.railyard.shuffle.format.FrameHeader;
import java.nio.charset.StandardCharsets;

/**
 * The transport's wire format: every message is a frame {@code magic:int | type:byte | length:int}
 * followed by {@code length} bytes of body, big-endian. The types and their bodies:
 *
 * <table>
 *   <caption>Messages</caption>
 *   <tr><th>type</th><th>direction</th><th>body</th></tr>
 *   <tr><td>{@link #HELLO}</td><td>server → client, first</td><td>nonce (16 bytes)</td></tr>
 *   <tr><td>{@link #OPEN}</td><td>client → server</td><td>stream:int, job:16 bytes, proof
 *       (32 bytes: HMAC-SHA256 of the job's secret over nonce, job and stream), subpartition:int,
 *       pageSize:int, count:int, count × (partition:int, attempt:int)</td></tr>
 *   <tr><td>{@link #CREDIT}</td><td>client → server</td><td>stream:int, pages:int</td></tr>
 *   <tr><td>{@link #CANCEL}</td><td>client → server</td><td>stream:int</td></tr>
 *   <tr><td>{@link #DATA}</td><td>server → client</td><td>stream:int, channel:int, backlog:int,
 *       then the bytes (a run of that channel's record stream)</td></tr>
 *   <tr><td>{@link #FRAMES}</td><td>server → client</td><td>stream:int, backlog:int, then up to
 *       {@value #MAX_GROUPS} groups of channel:int, position:long (in the producer's data file),
 *       bytes:int, then that many bytes: whole frames of the channel's partition file as they lie
 *       on disk (sent from the file without a copy), which the reader checks and opens</td></tr>
 *   <tr><td>{@link #BACKLOG}</td><td>server → client</td><td>stream:int, backlog:int</td></tr>
 *   <tr><td>{@link #END}</td><td>server → client</td><td>stream:int</td></tr>
 *   <tr><td>{@link #ERROR}</td><td>server → client</td><td>stream:int, kind:byte,
 *       partition:int, attempt:int, message (UTF-8, the rest); stream 0 with kind {@link
 *       #REFUSED}: the whole connection is refused (a reader without TLS at a TLS server, told in
 *       plaintext)</td></tr>
 *   <tr><td>{@link #PING}</td><td>either</td><td>none (a heartbeat)</td></tr>
 * </table>
 *
 * <p>A backlog is exact for a stream of DATA: the pages the stream's data waiting at the server
 * fills beyond the reader's current page (after this piece), by the packing rule both sides follow.
 * A stream of FRAMES takes one page per piece (its frames' bytes, and their payloads once opened,
 * each fit a page) and its backlog is a lower bound, the pages its frames left fill if packed
 * without a gap: at least 1 while a frame is left. Either way the reader grants no more credit than
 * the backlog, so no page granted waits for data that is not there.
 *
 * <p>No body is longer than {@link #maxBody(byte, int)} for the receiver's page size: a peer cannot
 * make a receiver buffer more than a page and a header for one frame. Stateless.
 */
final class Wire {
    private Wire() {}

    /** {@code RLYD}: the first four bytes of every frame. */
    static final int MAGIC = 0x524C5944;

    /** Bytes of a frame's header. */
    static final int HEADER = 9;

    static final byte HELLO = 1;
    static final byte OPEN = 2;
    static final byte CREDIT = 3;
    static final byte CANCEL = 4;
    static final byte DATA = 5;
    static final byte BACKLOG = 6;
    static final byte END = 7;
    static final byte ERROR = 8;
    static final byte PING = 9;
    static final byte FRAMES = 10;

    /** Bytes of a nonce. */
    static final int NONCE = 16;

    /** Bytes of a proof (HMAC-SHA256). */
    static final int PROOF = JobSecret.PROOF_BYTES;

    /** Bytes of a DATA body before its payload. */
    static final int DATA_HEADER = 12;

    /** Bytes of a FRAMES body before its first group. */
    static final int FRAMES_HEADER = 8;

    /** Bytes of a FRAMES group before its frames. */
    static final int GROUP_HEADER = 16;

    /** Groups one FRAMES piece holds at most. */
    static final int MAX_GROUPS = 64;

    /** Bytes of the smallest frame of a partition file (a header, no payload). */
    static final int MIN_FILE_FRAME = FrameHeader.BYTES;

    /** Bytes of an OPEN body before its partitions. */
    static final int OPEN_HEADER = 4 + 16 + PROOF + 4 + 4 + 4;

    /** Bytes of an ERROR body before its message. */
    static final int ERROR_HEADER = 13;

    /** The longest error message sent, in bytes. */
    static final int MAX_MESSAGE = 1024;

    /** Error kinds. */
    static final byte LOST = 1;

    static final byte REFUSED = 2;
    static final byte FAILED = 3;

    /** Partitions one OPEN names at most (a reader opens more streams for more). */
    static final int MAX_OPEN_PARTITIONS = 4096;

    /**
     * The longest body a frame of {@code type} may have when its receiver's pages are {@code
     * pageSize} bytes; -1 if {@code type} is not a type.
     */
    static int maxBody(byte type, int pageSize) {
        return switch (type) {
            case HELLO -> NONCE;
            case OPEN -> OPEN_HEADER + 8 * MAX_OPEN_PARTITIONS;
            case CREDIT, BACKLOG -> 8;
            case CANCEL, END -> 4;
            case DATA -> DATA_HEADER + pageSize;
            case FRAMES -> FRAMES_HEADER + MAX_GROUPS * GROUP_HEADER + pageSize;
            case ERROR -> ERROR_HEADER + MAX_MESSAGE;
            case PING -> 0;
            default -> -1;
        };
    }

    /** The smallest body a frame of {@code type} has. */
    static int minBody(byte type) {
        return switch (type) {
            case HELLO -> NONCE;
            case OPEN -> OPEN_HEADER + 8;
            case CREDIT, BACKLOG -> 8;
            case CANCEL, END -> 4;
            case DATA -> DATA_HEADER + 1;
            case FRAMES -> FRAMES_HEADER + GROUP_HEADER + MIN_FILE_FRAME;
            case ERROR -> ERROR_HEADER;
            default -> 0;
        };
    }

    /** A frame's name, for logs. */
    static String name(byte type) {
        return switch (type) {
            case HELLO -> "HELLO";
            case OPEN -> "OPEN";
            case CREDIT -> "CREDIT";
            case CANCEL -> "CANCEL";
            case DATA -> "DATA";
            case BACKLOG -> "BACKLOG";
            case END -> "END";
            case ERROR -> "ERROR";
            case PING -> "PING";
            case FRAMES -> "FRAMES";
            default -> "type " + type;
        };
    }

    /** A header for a body of {@code length}, with room for {@code extra} more bytes. */
    static ByteBuf header(ByteBufAllocator alloc, byte type, int length, int extra) {
        ByteBuf out = alloc.ioBuffer(HEADER + extra);
        out.writeInt(MAGIC).writeByte(type).writeInt(length);
        return out;
    }

    /** A frame of one int. */
    static ByteBuf intFrame(ByteBufAllocator alloc, byte type, int value) {
        return header(alloc, type, 4, 4).writeInt(value);
    }

    /** A frame of two ints. */
    static ByteBuf twoIntFrame(ByteBufAllocator alloc, byte type, int first, int second) {
        return header(alloc, type, 8, 8).writeInt(first).writeInt(second);
    }

    /** A DATA frame's header and the fixed part of its body, for {@code payload} bytes. */
    static ByteBuf dataHeader(
            ByteBufAllocator alloc, int stream, int channel, int backlog, int payload) {
        return header(alloc, DATA, DATA_HEADER + payload, DATA_HEADER)
                .writeInt(stream)
                .writeInt(channel)
                .writeInt(backlog);
    }

    /** A FRAMES frame's header and the fixed part of its body, for {@code groups} bytes after. */
    static ByteBuf framesHeader(ByteBufAllocator alloc, int stream, int backlog, int groups) {
        return header(alloc, FRAMES, FRAMES_HEADER + groups, FRAMES_HEADER)
                .writeInt(stream)
                .writeInt(backlog);
    }

    /** A FRAMES group's header, for {@code bytes} bytes of frames. */
    static ByteBuf groupHeader(ByteBufAllocator alloc, int channel, long position, int bytes) {
        return alloc.ioBuffer(GROUP_HEADER).writeInt(channel).writeLong(position).writeInt(bytes);
    }

    /** An ERROR frame; the message is cut to {@value #MAX_MESSAGE} bytes. */
    static ByteBuf error(
            ByteBufAllocator alloc,
            int stream,
            byte kind,
            int partition,
            int attempt,
            String message) {
        byte[] text = message.getBytes(StandardCharsets.UTF_8);
        int length = Math.min(text.length, MAX_MESSAGE);
        return header(alloc, ERROR, ERROR_HEADER + length, ERROR_HEADER + length)
                .writeInt(stream)
                .writeByte(kind)
                .writeInt(partition)
                .writeInt(attempt)
                .writeBytes(text, 0, length);
    }
}
