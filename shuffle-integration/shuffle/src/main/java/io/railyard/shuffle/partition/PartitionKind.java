package io.railyard.shuffle.partition;

/**
 * How a result partition is written and read: the one kind {@link ShuffleWorker#createPartition}
 * takes. Blocking kinds ({@link #SORT}, {@link #HASH}) are readable once their producer finished,
 * by any number of readers, until released; the others are readable while written ({@link
 * #isReadableWhileWritten()}), from memory while the data is there.
 *
 * <p>Memory is the writer's guarantee in network pages ({@link ShuffleMemory}); {@code [+1]} is the
 * LZ4 scratch page, taken when {@code shuffle.compression} compresses. Files are named after the
 * partition's id ({@code p17.a2}) in the worker's directory.
 */
public enum PartitionKind {
    /**
     * Sort-based blocking: records go through a sort buffer and leave as regions of one file, each
     * an index block and one section per subpartition. Memory: {@code sort-buffer-pages +
     * write-batch-pages + 1 [+1]} pages, whatever the number of subpartitions (and three ints per
     * subpartition on the heap). Files: one, {@code <id>.data}.
     */
    SORT,

    /**
     * Hash-based blocking, the baseline: one page and one open file per subpartition. Memory: one
     * page per subpartition {@code [+1]}. Files: one per subpartition, {@code <id>.hash.<s>}, all
     * open while it is written.
     */
    HASH,

    /**
     * Hybrid, full spilling (Flink's {@code HYBRID_FULL}): every byte is written to disk as it is
     * produced and stays re-readable; consumers read from memory while it is resident, and a new
     * reader of a subpartition re-reads it from the first frame. Memory: {@code sort-buffer-pages +
     * 1 [+1]} pages, plus resident regions in borrowed pages while the pool's pages in use stay
     * below {@code shuffle.hybrid.memory-fraction} (the pool can ask them back). Files: {@code
     * <id>.data} holds everything; {@code <id>.spill} is never written.
     */
    HYBRID_FULL,

    /**
     * Hybrid, selective spilling (Flink's {@code HYBRID_SELECTIVE}): only data under memory
     * pressure goes to disk, never data already consumed; each subpartition can be read once.
     * Memory: as {@link #HYBRID_FULL}. Files: {@code <id>.data} for regions that could not stay in
     * memory, and {@code <id>.spill}, created at the first spill.
     */
    HYBRID_SELECTIVE,

    /**
     * Pipelined and bounded in memory (Flink's {@code PIPELINED_BOUNDED}): read once, as {@link
     * #HYBRID_SELECTIVE}, but the producer waits as soon as the partition holds {@code
     * sort-buffer-pages} unconsumed resident pages instead of spilling — backpressure. While some
     * consumer has not attached yet it waits for room at most {@value
     * HybridPartition#ABSENT_CONSUMER_WAIT_MILLIS} ms in all, then goes on as selective (that
     * consumer's task may have no slot until this producer ends). Memory: as {@link #HYBRID_FULL},
     * the resident pages bounded as said. Files: as {@link #HYBRID_SELECTIVE}, written only then,
     * or under pool pressure.
     */
    PIPELINED;

    /**
     * Whether consumers may read the partition while it is written: its writer's partition is
     * readable from creation ({@link ResultPartitionWriter#readablePartition()}). True for the
     * hybrid kinds and {@link #PIPELINED}.
     */
    public boolean isReadableWhileWritten() {
        return this != SORT && this != HASH;
    }

    /**
     * Whether each subpartition can be read only once (a second reader fails with {@link
     * PartitionLostException}): {@link #HYBRID_SELECTIVE} and {@link #PIPELINED}.
     */
    public boolean isReadOnce() {
        return this == HYBRID_SELECTIVE || this == PIPELINED;
    }
}
