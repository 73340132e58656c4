package io.railyard.worker;

import io.railyard.deployment.JobId;
import io.railyard.deployment.JobSecret;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.topology.PartitionId;
import java.util.List;

/**
 * How a worker's shuffle reaches other workers over a network instead of calling their shuffle
 * layers: the seam a transport (Railyard's, on Netty) plugs into. The worker's data server serves
 * the partitions of the jobs it runs; its gates read other workers' partitions through it. A gate
 * it opens is an {@link InputGate} like any other, so a task never knows where its inputs come
 * from. The job's secret comes from the task's deployment descriptor, the only way it reaches a
 * worker. Implementations are thread-safe.
 */
public interface ShuffleNetwork {
    /**
     * This worker's data server serves job {@code job}'s partitions held in {@code partitions} to
     * readers proving {@code secret}. Called at each deployment of a task of the job; idempotent.
     */
    void serve(JobId job, JobSecret secret, PartitionRegistry partitions);

    /**
     * A gate named {@code name} of job {@code job} reading subpartition {@code subpartition} of
     * each of {@code partitions} (channel i reads partitions[i], held by worker {@code
     * holders[i]}), proving {@code secret}, reading at once. Partitions not registered yet are
     * waited for at their worker, as {@link PartitionRegistry#await} waits; a partition lost,
     * released or corrupt there, or a worker that cannot be reached, fails the gate with {@link
     * io.railyard.shuffle.PartitionLostException} naming the partition.
     */
    InputGate openGate(
            String name,
            JobId job,
            JobSecret secret,
            int[] holders,
            List<PartitionId> partitions,
            int subpartition);
}
