package io.railyard.shuffle.partition;

/**
 * Counters of hybrid partitions — of one ({@link HybridPartition#stats()}) or summed over a
 * worker's ({@link ShuffleWorker#hybridStats()}) — in bytes of frames, headers included.
 *
 * @param bytesProduced sealed by the producers
 * @param bytesWrittenToDisk written to data files (write-through, or directly when memory was
 *     short)
 * @param bytesSpilled written to spill files under memory pressure
 * @param bytesReadFromMemory delivered to readers from resident pages
 * @param bytesReadFromDisk delivered to readers from either file
 * @param residentPages pages held now
 * @param peakResidentPages pages held at most at once, so far
 */
public record HybridStats(
        long bytesProduced,
        long bytesWrittenToDisk,
        long bytesSpilled,
        long bytesReadFromMemory,
        long bytesReadFromDisk,
        int residentPages,
        int peakResidentPages) {}
