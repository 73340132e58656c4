package io.railyard.deployment;

/**
 * The shuffle descriptors of a job's partitions: where each partition's producer runs (a worker of
 * the job's {@link WorkerTable}), the connection index to reach it, and the producer's attempt. The
 * shuffle layer implements this; this module's test-jar holds a fixed-placement implementation for
 * tests and benchmarks ({@code StaticShuffleDescriptors}).
 *
 * <p>Partition ids are those of the job graph. {@link GroupDescriptors#encode} calls each method
 * once per partition of a group, so a method must not allocate and should cost no more than a
 * job-graph lookup such as {@link io.railyard.topology.JobGraph#producerTask(int)} (O(1) for up to
 * 512 datasets whose producers have comparable parallelism, O(log D) at worst). Calls come from the
 * JobManager's main thread.
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
