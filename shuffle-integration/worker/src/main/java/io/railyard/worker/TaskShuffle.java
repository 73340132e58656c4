package io.railyard.worker;

import io.railyard.deployment.GroupDescriptors;
import io.railyard.deployment.InputDescriptor;
import io.railyard.deployment.ProducedPartition;
import io.railyard.deployment.TaskDeploymentDescriptor;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ResultPartition;
import io.railyard.shuffle.partition.ResultPartitionWriter;
import io.railyard.topology.PartitionId;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One task attempt's shuffle, made from its deployment descriptor by {@link
 * ShuffleEnvironment#deploy}: a result-partition writer per produced partition (output {@code k}
 * writes the attempt's partition of its k-th produced dataset) and an input gate per consumed
 * group, reading the subpartition the descriptor names of every partition of the group, wherever it
 * lives.
 *
 * <p>Lifecycle: partitions readable while written exist from {@code deploy}; {@link
 * #createBlockingPartitions} and {@link #openInputGates} when the task starts; {@link #finish}
 * finishes every writer and registers the blocking partitions (unless the attempt was cancelled
 * meanwhile: then they are released); {@link #close} abandons whatever is still open — unfinished
 * writers' files and pages go, gates close. Partitions that were registered stay: the JobManager
 * releases them.
 *
 * <p>Not thread-safe: owned by the task's thread (its deployment by the thread that deploys).
 */
public final class TaskShuffle implements AutoCloseable {
    /** The attempt that owns the shuffle, as the registry and the waits see it. */
    public interface Attempt extends PartitionRegistry.Producer, PartitionRegistry.Waiter {}

    private final ShuffleEnvironment environment;
    private final TaskDeploymentDescriptor descriptor;
    private final Attempt attempt;
    private final @Nullable ResultPartitionWriter[] writers;
    private final List<InputGate> gates = new ArrayList<>();

    TaskShuffle(
            ShuffleEnvironment environment, TaskDeploymentDescriptor descriptor, Attempt owner) {
        this.environment = environment;
        this.descriptor = descriptor;
        this.attempt = owner;
        this.writers = new ResultPartitionWriter[descriptor.produced().size()];
    }

    /** Number of outputs: the datasets the task produces. */
    public int numOutputs() {
        return writers.length;
    }

    /**
     * The writer of output {@code output}.
     *
     * @throws IllegalStateException if it is not open (not created yet, finished or closed)
     */
    public ResultPartitionWriter output(int output) {
        ResultPartitionWriter writer = writers[output];
        if (writer == null) {
            throw new IllegalStateException("output " + output + " is not open");
        }
        return writer;
    }

    /** Creates and registers the partitions readable while written. At deployment. */
    void createEarlyPartitions() throws IOException {
        for (int k = 0; k < writers.length; k++) {
            ProducedPartition produced = descriptor.produced().get(k);
            PartitionKind kind = environment.kindOf(produced.type());
            if (kind.isReadableWhileWritten()) {
                PartitionId id = partitionId(produced);
                ResultPartitionWriter writer =
                        environment
                                .shuffle()
                                .createPartition(id, produced.numSubpartitions(), kind);
                writers[k] = writer;
                ResultPartition partition = writer.readablePartition().orElseThrow();
                if (!environment.partitions().register(id, partition, attempt)) {
                    throw new IllegalStateException(
                            "task " + descriptor.task() + " was cancelled while deployed");
                }
            }
        }
    }

    /** Creates the blocking partitions (readable once finished). When the task starts. */
    public void createBlockingPartitions() throws IOException {
        for (int k = 0; k < writers.length; k++) {
            if (writers[k] == null) {
                ProducedPartition produced = descriptor.produced().get(k);
                writers[k] =
                        environment
                                .shuffle()
                                .createPartition(
                                        partitionId(produced),
                                        produced.numSubpartitions(),
                                        environment.kindOf(produced.type()));
            }
        }
    }

    /**
     * Opens one gate per consumed group on the subpartition the descriptor names, waiting for
     * partitions whose producers have not registered them yet; the gates start reading at once.
     *
     * @throws IOException if a group cannot be resolved or a partition is lost ({@link
     *     io.railyard.shuffle.PartitionLostException} names it)
     * @throws InterruptedException if interrupted while waiting for a partition
     * @throws IllegalStateException if an input reads more than one subpartition (a gate reads one)
     */
    public List<InputGate> openInputGates() throws IOException, InterruptedException {
        for (int k = 0; k < descriptor.inputs().size(); k++) {
            InputDescriptor input = descriptor.inputs().get(k);
            if (input.numSubpartitions() != 1) {
                throw new IllegalStateException(
                        "input "
                                + k
                                + " reads "
                                + input.numSubpartitions()
                                + " subpartitions; a gate reads one");
            }
            GroupDescriptors group = environment.resolve(input);
            int[] holders = new int[group.size()];
            List<PartitionId> read = new ArrayList<>(group.size());
            for (int i = 0; i < group.size(); i++) {
                holders[i] = group.worker(i);
                read.add(new PartitionId(group.firstPartition() + i, group.producerAttempt(i)));
            }
            String name = "t" + descriptor.task() + ".a" + descriptor.attempt() + ".in" + k;
            gates.add(
                    environment.openGate(
                            name, descriptor, holders, read, input.firstSubpartition(), attempt));
        }
        return List.copyOf(gates);
    }

    /**
     * Finishes every open writer; registers each blocking partition, or releases it if the attempt
     * was cancelled meanwhile (nobody will read it).
     *
     * @throws IOException if a writer cannot finish (the rest stay open for {@link #close})
     */
    public void finish() throws IOException {
        for (int k = 0; k < writers.length; k++) {
            ResultPartitionWriter writer = writers[k];
            if (writer != null) {
                ResultPartition partition = writer.finish();
                writers[k] = null;
                if (!writer.kind().isReadableWhileWritten() // registered at deployment
                        && !environment.partitions().register(writer.id(), partition, attempt)) {
                    partition.release();
                }
            }
        }
    }

    /** Abandons what is still open: unfinished writers' files and pages go, gates close. */
    @Override
    public void close() {
        for (int k = 0; k < writers.length; k++) {
            ResultPartitionWriter writer = writers[k];
            if (writer != null) {
                writer.close();
                writers[k] = null;
            }
        }
        for (InputGate gate : gates) {
            gate.close();
        }
        gates.clear();
    }

    private PartitionId partitionId(ProducedPartition produced) {
        return new PartitionId(produced.partition(), descriptor.attempt());
    }
}
