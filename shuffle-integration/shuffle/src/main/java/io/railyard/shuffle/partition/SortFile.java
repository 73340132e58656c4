package io.railyard.shuffle.partition;

import io.railyard.shuffle.format.FrameCodec;
import io.railyard.shuffle.format.IndexEntry;
import io.railyard.shuffle.format.SortIndex;
import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The one file of a sort partition being written: regions, each an index block followed by the
 * region's sections, subpartition after subpartition (or one broadcast section). A dense block has
 * one {@link IndexEntry} per subpartition; a sparse one (a region whose data is in fewer than
 * 1/{@value #SPARSE_FACTOR} of the subpartitions) has an entry per subpartition with data only, and
 * the partition keeps those subpartitions in memory. A region's frames are appended in order with
 * {@link #write}; its sections are announced as they end ({@link #section}), in subpartition order,
 * so their entries fill the index block, whose room {@link #beginRegion} skipped.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li>One file, not a data file and an index file: creating files dominated writing at 1,000 ×
 *       1,000. The index block's size is known when a region starts (n entries), so its room is
 *       skipped and its page of entries is written into it with positional writes as sections end:
 *       data and index stream out together. The heap keeps one offset per region to find the blocks
 *       again ({@link SortPartition}).
 *   <li>The sections of a region of {@value #ALIGNED_REGION_BYTES} bytes or more start at a
 *       multiple of {@value #SECTION_ALIGNMENT} bytes, so full pages are written at offsets the
 *       page cache can serve with large folios; the file's size then counts the holes this leaves.
 *   <li>The bytes written (frames and index) are counted into the writer's and worker's counters.
 * </ul>
 *
 * <p>Not thread-safe: owned by the producing task's thread. Writes are O(bytes); announcing a
 * section is O(1) amortised (O(n) for a broadcast section, one entry per subpartition).
 */
final class SortFile implements SortBuffer.SectionSink {
    /**
     * The sections of a large region start at a multiple of this, so 32 KiB pages are written at 32
     * KiB-aligned offsets, which the kernel's page cache fills with large folios. Measured at one
     * subpartition, 1 GiB, three runs each: starting 16 bytes after a one-entry index block, the
     * lane writer wrote at 0.6–0.7 of the hash writer's rate (whose files start at 0); 4 KiB
     * alignment still allocated a 4 KiB folio per block (the kernel's folio lookups tripled); 64
     * KiB alignment: 0.84–0.91.
     */
    static final int SECTION_ALIGNMENT = 64 * 1024;

    /** A region of at least this many bytes is aligned; the hole costs at most 1/16 of it. */
    static final int ALIGNED_REGION_BYTES = 16 * SECTION_ALIGNMENT;

    /** A region is sparse when fewer than 1/this of its subpartitions have data. */
    static final int SPARSE_FACTOR = 8;

    private static final int[][] NO_REGIONS = new int[0][];

    private final Path path;
    private final FileChannel channel;
    private final int numSubpartitions;
    private final ByteBuffer indexPage;
    private final SortIndex indexFormat = new SortIndex();
    private final LongConsumer written;
    private int regions;
    private long[] regionStarts = new long[4];
    // Per region: the subpartitions with an entry in its sparse block, or null for a dense block.
    private int[][] sparseLanes = NO_REGIONS;
    private int @Nullable [] sparse; // the current region's, and how many of them have come
    private int sparseDone;
    private final BitSet holding = new BitSet(); // subpartitions with a non-empty section
    private long bytes;
    private long frameBytes;
    // Where the index page's entries go in the current region's index block.
    private long indexWriteAt;

    /**
     * A file at {@code path}, open for writing as {@code channel}, of {@code numSubpartitions};
     * {@code indexPage} gathers index entries; {@code written} hears of every byte written.
     */
    SortFile(
            Path path,
            FileChannel channel,
            int numSubpartitions,
            ByteBuffer indexPage,
            LongConsumer written) {
        this.path = path;
        this.channel = channel;
        this.numSubpartitions = numSubpartitions;
        this.indexPage = indexPage.clear();
        this.written = written;
    }

    Path path() {
        return path;
    }

    /** The most subpartitions with data a sparse region of this file may have. */
    int sparseLimit() {
        return (numSubpartitions - 1) / SPARSE_FACTOR;
    }

    /** Starts a region with a dense index block; see {@link #beginRegion(long, int[])}. */
    void beginRegion(long expectedBytes) throws IOException {
        beginRegion(expectedBytes, null);
    }

    /**
     * Starts a region of about {@code expectedBytes} of frames: leaves room for its index block —
     * sparse if {@code lanesWithData} (ascending, exactly the subpartitions whose sections will not
     * be empty) has at most {@link #sparseLimit} of them, else dense (also when it is null:
     * unknown); its sections follow it — from the next multiple of {@value #SECTION_ALIGNMENT} if
     * the region is at least {@value #ALIGNED_REGION_BYTES} bytes (the gap is never written: a
     * hole).
     */
    void beginRegion(long expectedBytes, int @Nullable [] lanesWithData) throws IOException {
        if (regions == regionStarts.length) {
            regionStarts = Arrays.copyOf(regionStarts, regions * 2);
        }
        regionStarts[regions] = bytes;
        indexWriteAt = bytes;
        int[] lanes =
                lanesWithData != null && lanesWithData.length <= sparseLimit()
                        ? lanesWithData
                        : null;
        sparse = lanes;
        sparseDone = 0;
        int entries = lanes == null ? numSubpartitions : lanes.length;
        bytes += (long) entries * IndexEntry.BYTES;
        if (expectedBytes >= ALIGNED_REGION_BYTES) {
            bytes = (bytes + SECTION_ALIGNMENT - 1) / SECTION_ALIGNMENT * SECTION_ALIGNMENT;
        }
        channel.position(bytes);
    }

    /** Appends {@code buffers[0, count)}, each from position to limit, to the current region. */
    void write(ByteBuffer[] buffers, int count) throws IOException {
        long expected = 0;
        for (int i = 0; i < count; i++) {
            expected += buffers[i].remaining();
        }
        long done = 0;
        while (done < expected) {
            // One buffer: write(2), not writev(2). Counted per call: a short write followed by a
            // failure still names every byte written.
            long now = count == 1 ? channel.write(buffers[0]) : channel.write(buffers, 0, count);
            done += now;
            written.accept(now);
        }
    }

    /** {@link SortBuffer.SectionSink}: a section ended; its index entries go out. */
    @Override
    public void section(int lane, long sectionBytes) throws IOException {
        if (sectionBytes > Integer.MAX_VALUE) {
            throw new IOException("a section of " + sectionBytes + " bytes exceeds 2 GiB - 1");
        }
        long start = bytes;
        bytes += sectionBytes;
        frameBytes += sectionBytes;
        if (lane == FrameCodec.BROADCAST_LANE) {
            for (int s = 0; s < numSubpartitions; s++) {
                putIndexEntry(start, (int) sectionBytes, s);
            }
            if (sectionBytes > 0) {
                holding.set(0, numSubpartitions);
            }
        } else {
            int[] lanes = sparse;
            if (lanes == null) {
                putIndexEntry(start, (int) sectionBytes, lane);
            } else if (sectionBytes > 0) {
                if (sparseDone == lanes.length || lanes[sparseDone] != lane) {
                    throw new IllegalStateException(
                            "subpartition "
                                    + lane
                                    + " has data but was not announced for the sparse region "
                                    + regions
                                    + " of "
                                    + path);
                }
                sparseDone++;
                putIndexEntry(start, (int) sectionBytes, lane);
            }
            if (sectionBytes > 0) {
                holding.set(lane);
            }
        }
    }

    /** Ends the region: the rest of its index block goes out. */
    void endRegion() throws IOException {
        int[] lanes = sparse;
        if (lanes != null && sparseDone != lanes.length) {
            throw new IllegalStateException(
                    "sparse region "
                            + regions
                            + " of "
                            + path
                            + " announced "
                            + lanes.length
                            + " subpartitions with data, got "
                            + sparseDone);
        }
        flushIndex();
        if (lanes != null) {
            if (sparseLanes.length < regionStarts.length) {
                sparseLanes = Arrays.copyOf(sparseLanes, regionStarts.length);
            }
            sparseLanes[regions] = lanes;
        }
        sparse = null;
        regions++;
    }

    /** Closes the file and describes what it holds. */
    SortPartition finish(PartitionId id) throws IOException {
        channel.close();
        return new SortPartition(
                id,
                numSubpartitions,
                path,
                Arrays.copyOf(regionStarts, regions),
                Arrays.copyOf(sparseLanes, regions),
                bytes,
                frameBytes,
                (BitSet) holding.clone());
    }

    void close() throws IOException {
        channel.close();
    }

    private void putIndexEntry(long start, int length, int subpartition) throws IOException {
        if (indexPage.remaining() < IndexEntry.BYTES) {
            flushIndex();
        }
        indexFormat.put(indexPage, start, length, regions, subpartition);
    }

    /** Writes the index page's entries into the region's index block (not moving the data). */
    private void flushIndex() throws IOException {
        indexPage.flip();
        while (indexPage.hasRemaining()) {
            int now = channel.write(indexPage, indexWriteAt);
            indexWriteAt += now;
            written.accept(now);
        }
        indexPage.clear();
    }
}
