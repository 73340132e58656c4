package io.railyard.shuffle.partition;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Writes the records of one lane into a run of frames: each record is a varint length followed by
 * its bytes, split across frames where it does not fit. Sealed frames go to a {@link FrameOutput},
 * which hands back the page to fill next. Not thread-safe; no allocation per record.
 */
final class LaneStream {
    /** Where sealed frames go. */
    interface FrameOutput {
        /** Takes the sealed frame in {@code frame} and returns a cleared page to fill next. */
        ByteBuffer write(ByteBuffer frame) throws IOException;
    }

    private final FrameCodec codec;
    private final @Nullable ByteBuffer scratch;
    private final FrameOutput output;
    private final int frameEnd;
    private ByteBuffer page;
    private int lane;
    private int sequence;
    private long laneBytes;

    LaneStream(
            FrameCodec codec, @Nullable ByteBuffer scratch, FrameOutput output, ByteBuffer page) {
        this.codec = codec;
        this.scratch = scratch;
        this.output = output;
        this.frameEnd = FrameCodec.HEADER_BYTES + codec.maxPayload();
        this.page = page;
        page.clear().position(FrameCodec.HEADER_BYTES);
    }

    /** Starts writing {@code lane} at frame number {@code firstSequence}; the page is empty. */
    void start(int lane, int firstSequence) {
        assert page.position() == FrameCodec.HEADER_BYTES;
        this.lane = lane;
        this.sequence = firstSequence;
        this.laneBytes = 0;
    }

    /** Appends the varint length of a record of {@code length} bytes. */
    void putLength(int length) throws IOException {
        int value = length;
        while (true) {
            if (page.position() == frameEnd) {
                flushFrame();
            }
            if ((value & ~0x7F) == 0) {
                page.put((byte) value);
                return;
            }
            page.put((byte) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
    }

    /** Appends {@code source[position, limit)}, consuming it. */
    void putBytes(ByteBuffer source) throws IOException {
        int end = source.limit();
        while (source.position() < end) {
            if (page.position() == frameEnd) {
                flushFrame();
            }
            int n = Math.min(frameEnd - page.position(), end - source.position());
            source.limit(source.position() + n);
            page.put(source);
            source.limit(end);
        }
    }

    /** Seals the partial frame, if any; returns the lane's next frame number. */
    int finishLane() throws IOException {
        if (page.position() > FrameCodec.HEADER_BYTES) {
            flushFrame();
        }
        return sequence;
    }

    /** Bytes of sealed frames (headers included) written for the current lane. */
    long laneBytes() {
        return laneBytes;
    }

    /** The page being filled (for returning it to its owner at the end). */
    ByteBuffer page() {
        return page;
    }

    private void flushFrame() throws IOException {
        int payload = page.position() - FrameCodec.HEADER_BYTES;
        codec.seal(page, lane, sequence, payload, scratch);
        sequence++;
        laneBytes += page.limit();
        page = output.write(page);
        page.clear().position(FrameCodec.HEADER_BYTES);
    }
}
