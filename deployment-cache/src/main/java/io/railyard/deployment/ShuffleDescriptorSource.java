package io.railyard.deployment;

/**
 * The shuffle descriptors of a job's partitions: where each partition's producer runs (a worker of
 * the job's {@link WorkerTable}), the connection index to reach it, and the producer's attempt. The
 * shuffle layer implements this; {@link StaticShuffleDescriptors} is a simple implementation.
 *
 * <p>Partition ids are those of the job graph. Every method is O(1) and must not allocate; calls
 * come from the JobManager's main thread.
 */
public interface ShuffleDescriptorSource {
    /** The job's worker table. */
    WorkerTable workers();

    /** The worker (index into {@link #workers()}) where partition {@code partition} is produced. */
    int worker(int partition);

    /** The connection index consumers use to reach the producer of {@code partition}. */
    int connectionIndex(int partition);

    /** The attempt number of the producer of {@code partition}. */
    int producerAttempt(int partition);
}
