package io.railyard.shuffle.partition;

import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The output of one producer attempt for one dataset, split into subpartitions, one per consumer:
 * what an {@link InputGate} reads. A {@link BlockingPartition} is readable once its producer
 * finished; a {@link HybridPartition} while it still produces.
 *
 * <p>Thread-safe: readers, the producer and the releasing thread may run at once. After {@link
 * #release()}, readers fail with {@link PartitionLostException} and the files are gone.
 */
public abstract sealed class ResultPartition permits BlockingPartition, HybridPartition {
    private final PartitionId id;
    private final String name;
    private final int numSubpartitions;

    /** Channels of open gates reading this partition (the IO thread serves them). */
    final Set<ChannelReader> readers = ConcurrentHashMap.newKeySet();

    ResultPartition(PartitionId id, int numSubpartitions) {
        this.id = id;
        this.name = id.toString();
        this.numSubpartitions = numSubpartitions;
    }

    /**
     * The scheduler's id of the partition (partition and producer attempt); {@link
     * PartitionLostException}s about it carry it.
     */
    public final PartitionId id() {
        return id;
    }

    /** The id as text, {@code p17.a2}: the base name of the partition's files, named in errors. */
    public final String name() {
        return name;
    }

    /** Number of subpartitions. */
    public final int numSubpartitions() {
        return numSubpartitions;
    }

    /** Every file this partition created. */
    public abstract List<Path> files();

    /** Whether {@link #release()} was called. */
    public abstract boolean isReleased();

    /**
     * Drops the partition's data (files and memory); its readers then fail with {@link
     * PartitionLostException}. Idempotent.
     *
     * @throws IOException if a file cannot be deleted (everything else still is)
     */
    public abstract void release() throws IOException;

    final void checkSubpartition(int subpartition) {
        checkSubpartition(name, numSubpartitions, subpartition);
    }

    /**
     * Checks that {@code subpartition} is one of partition {@code name}'s {@code n}. Allocates
     * nothing when it passes (it runs per record).
     */
    static void checkSubpartition(String name, int n, int subpartition) {
        if (subpartition < 0 || subpartition >= n) { // not checkArgument: it would box n and s
            throw new IllegalArgumentException(
                    "subpartition of '"
                            + name
                            + "' must be in [0, "
                            + n
                            + "), was "
                            + subpartition);
        }
    }
}
