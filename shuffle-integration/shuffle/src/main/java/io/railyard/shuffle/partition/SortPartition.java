package io.railyard.shuffle.partition;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.format.CorruptPartitionFileException;
import io.railyard.shuffle.format.FrameContext;
import io.railyard.shuffle.format.IndexEntry;
import io.railyard.shuffle.format.SortIndex;
import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A finished sort-based partition: one file of regions, each an index block of {@link SortIndex
 * entries} followed by its sections, clustered by subpartition ({@link SortFile}). The heap holds
 * one offset per region (where its index block starts) and, for a sparse region, its subpartitions
 * with data (fewer than n/8): finding a section is a binary search there, and a subpartition not
 * among them has an empty section without a read. Thread-safe: its monitor guards the index cache
 * and the data channel.
 */
final class SortPartition extends BlockingPartition {
    private static final int CACHE_BYTES = 64 * IndexEntry.BYTES;

    private final Path dataFile;
    private final long[] regionStarts;
    private final int[] @Nullable [] sparseLanes; // per region: a sparse block's subpartitions
    private final long frameBytes;
    private final BitSet holding; // the subpartitions with a section of at least one frame

    // The index cache, read by the IO threads of every worker whose gates read this partition.
    @GuardedBy("this")
    private final SortIndex index = new SortIndex();

    @GuardedBy("this")
    private final ByteBuffer cache = ByteBuffer.allocate(CACHE_BYTES);

    @GuardedBy("this")
    private final IndexEntry entry = new IndexEntry(); // a view into the cache

    @GuardedBy("this")
    private final FrameContext at = new FrameContext(); // names the entry a check rejects

    @GuardedBy("this")
    private long cacheStart = -1;

    @GuardedBy("this")
    private @Nullable FileChannel dataChannel;

    // Senders holding the data channel (openForSending), and the channel release closes once the
    // last of them is done: a socket may still be sending from it.
    @GuardedBy("this")
    private int senders;

    @GuardedBy("this")
    private @Nullable FileChannel closeWhenSent;

    SortPartition(
            PartitionId id,
            int n,
            Path dataFile,
            long[] regionStarts,
            int[] @Nullable [] sparseLanes,
            long fileBytes,
            long frameBytes,
            BitSet holding) {
        super(id, n, fileBytes);
        this.dataFile = dataFile;
        this.regionStarts = regionStarts;
        this.sparseLanes = sparseLanes;
        this.frameBytes = frameBytes;
        this.holding = holding;
    }

    @Override
    long frameBytes() {
        return frameBytes;
    }

    @Override
    public List<Path> files() {
        return List.of(dataFile);
    }

    @Override
    int regionCount() {
        return regionStarts.length;
    }

    /** Entries of the file's index blocks: n per dense region, one per lane of a sparse one. */
    long indexEntries() {
        long entries = 0;
        for (int[] lanes : sparseLanes) {
            entries += lanes == null ? numSubpartitions() : lanes.length;
        }
        return entries;
    }

    @Override
    boolean holdsDataFor(int subpartition) {
        return holding.get(subpartition);
    }

    @Override
    Path dataFile(int subpartition) {
        return dataFile;
    }

    @Override
    synchronized void loadSection(SectionCursor cursor, int region) throws IOException {
        int s = cursor.subpartition();
        int slot = s;
        int[] lanes = sparseLanes[region];
        if (lanes != null) {
            slot = Arrays.binarySearch(lanes, s);
            if (slot < 0) { // no entry: the subpartition has an empty section in this region
                cursor.setSection(regionStarts[region], 0);
                return;
            }
        }
        long position = regionStarts[region] + (long) slot * IndexEntry.BYTES;
        if (cacheStart < 0
                || position < cacheStart
                || position + IndexEntry.BYTES > cacheStart + cache.limit()) {
            fillCache(position);
        }
        entry.wrap(cache, (int) (position - cacheStart));
        index.check(entry, region, s, bytesOnDisk(), at.at(id(), dataFile, position));
        cursor.setSection(entry.sectionOffset(), entry.sectionLength());
    }

    /**
     * Reads up to {@value #CACHE_BYTES} bytes of the index from {@code position}: the entries of
     * the next subpartitions, which the consumers running beside this one ask for next.
     */
    @GuardedBy("this")
    private void fillCache(long position) throws IOException {
        FileChannel file = openForRead(dataFile);
        cache.clear();
        try {
            while (cache.hasRemaining()) {
                if (file.read(cache, position + cache.position()) < 0) {
                    break;
                }
            }
        } catch (IOException e) {
            cacheStart = -1;
            throw new PartitionLostException(
                    id(),
                    "reading the index of " + dataFile + " at offset " + position + ": " + e,
                    e);
        }
        cache.flip();
        cacheStart = position;
        if (cache.limit() < IndexEntry.BYTES) {
            cacheStart = -1;
            throw new CorruptPartitionFileException(
                    id(), dataFile, position, "index entry past the end of the file");
        }
    }

    /** The one data channel, opened on first use and kept until release. */
    @Override
    synchronized FileChannel openForRead(Path file) throws IOException {
        FileChannel open = dataChannel;
        if (open == null) {
            open = super.openForRead(file);
            dataChannel = open;
        }
        return open;
    }

    @Override
    void doneReading(FileChannel channel) {
        // Shared: closed at release.
    }

    @Override
    synchronized FileChannel openForSending(Path file) throws IOException {
        FileChannel open = openForRead(file);
        senders++;
        return open;
    }

    @Override
    synchronized void doneSending(FileChannel channel) {
        senders--;
        FileChannel close = closeWhenSent;
        if (senders == 0 && close != null) {
            closeWhenSent = null;
            super.doneReading(close);
        }
    }

    @Override
    synchronized void closeReadChannels() {
        FileChannel data = dataChannel;
        dataChannel = null;
        cacheStart = -1;
        if (data != null) {
            if (senders > 0) {
                closeWhenSent = data;
            } else {
                super.doneReading(data);
            }
        }
    }
}
