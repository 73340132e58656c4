package io.railyard.worker;

import io.railyard.shuffle.partition.InputGate;
import io.railyard.topology.PartitionId;
import java.util.List;

/**
 * How a worker's gates read partitions over a network transport instead of from the shuffle layer
 * of the worker that holds them: the seam a transport (Railyard's, on Netty) plugs into. A gate it
 * opens is an {@link InputGate} like any other, so a task never knows where its inputs come from.
 * Implementations are thread-safe.
 */
@FunctionalInterface
public interface NetworkReader {
    /**
     * A gate named {@code name} reading subpartition {@code subpartition} of each of {@code
     * partitions} (channel i reads partitions[i], held by worker {@code holders[i]}), reading at
     * once. Partitions not registered yet are waited for at their worker, as {@link
     * PartitionRegistry#await} waits; a partition lost, released or corrupt there, or a worker that
     * cannot be reached, fails the gate with {@link io.railyard.shuffle.PartitionLostException}
     * naming the partition.
     */
    InputGate openGate(String name, int[] holders, List<PartitionId> partitions, int subpartition);
}
