package io.railyard.shuffle.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Writes the records of one lane into a run of frames: each record is a varint length followed by
 * its bytes, split across frames where it does not fit. Frames are packed back to back in the page
 * being filled; a full page goes to a {@link FrameOutput}, which hands back the page to fill next.
 * Not thread-safe; no allocation per record (sealing a frame allocates nothing with native LZ4, see
 * {@link FrameCodec}).
 */
public final class LaneStream {
    /** Where pages of sealed frames go. */
    public interface FrameOutput {
        /**
         * Takes the sealed frames in {@code page[position, limit)} and returns a page to fill next
         * (possibly the same one, once written).
         */
        ByteBuffer write(ByteBuffer page) throws IOException;
    }

    /** A new frame starts in the current page only if this much payload still fits after it. */
    private static final int MIN_FRAME_ROOM = FrameHeader.BYTES + 256;

    private final FrameCodec codec;
    private final @Nullable ByteBuffer scratch;
    private final FrameOutput output;
    private final int maxPayload;
    private ByteBuffer page;
    private int frameStart;
    private int frameEnd;
    private int lane;
    private int sequence;
    private long laneBytes;

    /**
     * A stream sealing frames with {@code codec} (compressing through {@code scratch}, null when it
     * does not compress), filling {@code page} first and handing each full page to {@code output}.
     */
    public LaneStream(
            FrameCodec codec, @Nullable ByteBuffer scratch, FrameOutput output, ByteBuffer page) {
        this.codec = codec;
        this.scratch = scratch;
        this.output = output;
        this.maxPayload = codec.maxPayload();
        this.page = page;
        startFrame(0);
    }

    /** Starts writing {@code lane} at frame number {@code firstSequence}; no frame is open. */
    public void start(int lane, int firstSequence) {
        assert page.position() == frameStart + FrameHeader.BYTES;
        this.lane = lane;
        this.sequence = firstSequence;
        this.laneBytes = 0;
    }

    /** Appends the varint length of a record of {@code length} bytes. */
    public void putLength(int length) throws IOException {
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
    public void putBytes(ByteBuffer source) throws IOException {
        int end = source.limit();
        while (source.position() < end) {
            if (page.position() == frameEnd) {
                flushFrame();
            }
            int n = Math.min(frameEnd - page.position(), end - source.position());
            page.put(page.position(), source, source.position(), n);
            page.position(page.position() + n);
            source.position(source.position() + n);
        }
    }

    /** Seals the open frame, if it holds anything; returns the lane's next frame number. */
    public int finishLane() throws IOException {
        flushFrame();
        return sequence;
    }

    /** Hands the frames packed in the current page to the output. */
    public void drain() throws IOException {
        if (frameStart > 0) {
            page.limit(frameStart).position(0);
            page = output.write(page);
            startFrame(0);
        }
    }

    /** The page being filled (empty after {@link #drain}). */
    ByteBuffer page() {
        return page;
    }

    /**
     * Fills {@code next} from now on instead of the current page, which must hold nothing (right
     * after {@link #drain}, or before the first frame): the caller keeps the current page.
     */
    public void switchPage(ByteBuffer next) {
        assert frameStart == 0 && page.position() == FrameHeader.BYTES : "the page holds frames";
        page = next;
        startFrame(0);
    }

    /** Bytes of sealed frames (headers included) written for the current lane. */
    public long laneBytes() {
        return laneBytes;
    }

    private void flushFrame() throws IOException {
        int payload = page.position() - frameStart - FrameHeader.BYTES;
        if (payload == 0) {
            return;
        }
        int length = codec.seal(page, frameStart, lane, sequence, payload, scratch);
        sequence++;
        laneBytes += length;
        int next = frameStart + length;
        if (page.capacity() - next < MIN_FRAME_ROOM) {
            page.limit(next).position(0);
            page = output.write(page);
            next = 0;
        }
        startFrame(next);
    }

    private void startFrame(int at) {
        frameStart = at;
        frameEnd = Math.min(page.capacity(), at + FrameHeader.BYTES + maxPayload);
        page.clear().position(at + FrameHeader.BYTES);
    }
}
