package io.railyard.shuffle.partition;

import io.railyard.topology.PartitionId;
import java.nio.file.Path;
import java.util.List;

/** A finished hash-based partition: one data file per subpartition. Thread-safe (immutable). */
final class HashPartition extends BlockingPartition {
    private final List<Path> files;
    private final long[] fileBytes;

    HashPartition(PartitionId id, List<Path> files, long[] fileBytes, long dataBytes) {
        super(id, files.size(), dataBytes);
        this.files = List.copyOf(files);
        this.fileBytes = fileBytes;
    }

    @Override
    public List<Path> files() {
        return files;
    }

    @Override
    int regionCount() {
        return 1;
    }

    @Override
    boolean holdsDataFor(int subpartition) {
        return fileBytes[subpartition] > 0;
    }

    @Override
    Path dataFile(int subpartition) {
        return files.get(subpartition);
    }

    @Override
    void loadSection(SectionCursor cursor, int region) {
        cursor.setSection(0, fileBytes[cursor.subpartition()]);
    }
}
