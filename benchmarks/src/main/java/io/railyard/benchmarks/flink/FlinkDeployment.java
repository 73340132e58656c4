package io.railyard.benchmarks.flink;

import io.railyard.benchmarks.procedures.DeployProcedures;
import io.railyard.benchmarks.procedures.RandomPlacement;
import io.railyard.deployment.OffloadOptions;
import io.railyard.topology.JobGraph;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.blob.BlobWriter;
import org.apache.flink.runtime.blob.PermanentBlobKey;
import org.apache.flink.runtime.clusterframework.types.ResourceID;
import org.apache.flink.runtime.concurrent.ComponentMainThreadExecutorServiceAdapter;
import org.apache.flink.runtime.deployment.TaskDeploymentDescriptor;
import org.apache.flink.runtime.deployment.TaskDeploymentDescriptorFactory;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.DefaultExecutionGraph;
import org.apache.flink.runtime.executiongraph.Execution;
import org.apache.flink.runtime.executiongraph.ExecutionJobVertex;
import org.apache.flink.runtime.executiongraph.ExecutionVertex;
import org.apache.flink.runtime.executiongraph.utils.SimpleAckingTaskManagerGateway;
import org.apache.flink.runtime.jobmaster.LogicalSlot;
import org.apache.flink.runtime.jobmaster.TestingLogicalSlotBuilder;
import org.apache.flink.runtime.taskmanager.TaskManagerLocation;
import org.apache.flink.runtime.testutils.DirectScheduledExecutorService;
import org.apache.flink.util.InstantiationUtil;

/**
 * The procedure "deploy all" in Flink, the twin of {@link DeployProcedures#deployAll}: one job
 * whose every task has a slot and registered result partitions, and whose blocking partitions are
 * finished; {@link #deployAll()} deploys every task in topological order, as Flink's {@code
 * DeployingTasksBenchmarkBase} and {@code DeployingTasksInStreamingJobBenchmark} do: {@code
 * Execution.deploy()} creates each task deployment descriptor ({@code
 * TaskDeploymentDescriptorFactory}, with the shuffle descriptors of each consumed partition group
 * computed, serialized and compressed once and cached in its {@code IntermediateResult}, and
 * offloaded to the blob writer when (descriptors × consumers) reaches Flink's threshold) and hands
 * it to the task manager gateway. The gateway here Java-serializes each descriptor, as Flink's RPC
 * does before it ships one to a remote task manager, and counts the bytes: Railyard's twin also
 * encodes every descriptor to bytes.
 *
 * <p>Set-up as in Railyard's twin: tasks on {@link DeployProcedures#WORKERS} task managers placed
 * at random with the same seed, a blob store in memory. Flink offloads by count only (its byte
 * threshold applies to job and task information, not to shuffle descriptors) and always compresses,
 * so {@link OffloadOptions#byteThreshold()} and {@link OffloadOptions#compress()} have no Flink
 * counterpart. Each instance deploys once: the step moves every task to DEPLOYING.
 *
 * <p>Everything runs on the calling thread: the graph's executors run tasks in place (in a Flink
 * JobManager the RPC, and so the serialization, runs on its future-executor pool). Not thread-safe.
 */
public final class FlinkDeployment implements AutoCloseable {
    /** Railyard's placement seed ({@code DeployProcedures}), so both sides place tasks alike. */
    private static final long PLACEMENT_SEED = 20_000L;

    /** Flink's default {@code blob.offload.minsize}: larger job and task information goes. */
    private static final int MIN_OFFLOADING_BYTES = 1 << 20;

    private static final int DATA_PORT = 6121;

    private final DirectScheduledExecutorService executor = new DirectScheduledExecutorService();
    private final InMemoryBlobWriter blobs = new InMemoryBlobWriter();
    private final DefaultExecutionGraph graph;
    private final int numTasks;
    private long descriptorBytes;
    private int descriptors;

    /**
     * Builds the execution graph of {@code job} and prepares every task for deployment; {@code
     * options} chooses whether large groups are offloaded. O(tasks) objects.
     */
    public FlinkDeployment(FlinkJobs.Translation job, OffloadOptions options) throws Exception {
        Configuration config = new Configuration();
        config.set(
                TaskDeploymentDescriptorFactory.OFFLOAD_SHUFFLE_DESCRIPTORS_THRESHOLD,
                options.enabled()
                        ? (int) Math.min(options.edgeThreshold(), Integer.MAX_VALUE)
                        : Integer.MAX_VALUE);
        this.graph = FlinkJobs.executionGraph(job, executor, config, blobs);
        graph.start(ComponentMainThreadExecutorServiceAdapter.forMainThread());
        JobGraph railyard = job.railyard();
        this.numTasks = railyard.numTasks();

        SimpleAckingTaskManagerGateway gateway = new SimpleAckingTaskManagerGateway();
        gateway.setSubmitConsumer(this::ship);
        TaskManagerLocation[] workers = workers(DeployProcedures.WORKERS);
        RandomPlacement placement =
                new RandomPlacement(railyard, DeployProcedures.WORKERS, PLACEMENT_SEED);
        for (int task = 0; task < numTasks; task++) {
            TaskManagerLocation worker = workers[placement.workerOfTask(task)];
            LogicalSlot slot =
                    new TestingLogicalSlotBuilder()
                            .setTaskManagerLocation(worker)
                            .setTaskManagerGateway(gateway)
                            .createTestingLogicalSlot();
            Execution execution = job.executionVertexIn(graph, task).getCurrentExecutionAttempt();
            execution.registerProducedPartitions(worker).get();
            if (!execution.tryAssignResource(slot)) {
                throw new IllegalStateException("Flink refused a slot for " + execution);
            }
        }
        // As if every producer had run: consumers see the real locations of blocking partitions,
        // as Railyard's twin does, instead of Flink's "unknown" placeholders.
        for (ExecutionVertex vertex : graph.getAllExecutionVertices()) {
            vertex.finishPartitionsIfNeeded();
        }
    }

    /**
     * Deploys every task; returns the total bytes of the serialized descriptors.
     *
     * @throws IllegalStateException if Flink failed a deployment (it marks the task failed instead
     *     of throwing)
     */
    public long deployAll() throws Exception {
        for (ExecutionJobVertex jobVertex : graph.getVerticesTopologically()) {
            for (ExecutionVertex vertex : jobVertex.getTaskVertices()) {
                Execution execution = vertex.getCurrentExecutionAttempt();
                execution.transitionState(ExecutionState.SCHEDULED);
                execution.deploy();
            }
        }
        if (descriptors != numTasks) {
            throw new IllegalStateException(
                    "Flink shipped " + descriptors + " descriptors for " + numTasks + " tasks");
        }
        return descriptorBytes;
    }

    /** Descriptors shipped so far. */
    public int shippedDescriptors() {
        return descriptors;
    }

    /** Blobs the deployment offloaded so far. */
    public int offloadedBlobs() {
        return blobs.size();
    }

    /** Drops the offloaded blobs and stops the (in-place) executor. */
    @Override
    public void close() {
        blobs.clear();
        executor.shutdownNow();
    }

    private void ship(TaskDeploymentDescriptor descriptor) {
        try {
            descriptorBytes += InstantiationUtil.serializeObject(descriptor).length;
            descriptors++;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Task manager {@code i} at 10.x.y.z:6121, named as Railyard's workers; no name lookups. */
    private static TaskManagerLocation[] workers(int count) throws UnknownHostException {
        TaskManagerLocation[] workers = new TaskManagerLocation[count];
        for (int i = 0; i < count; i++) {
            String name = "worker-" + i + ".railyard";
            byte[] ip = {10, (byte) (i >>> 16), (byte) (i >>> 8), (byte) i};
            InetAddress address = InetAddress.getByAddress(name, ip);
            workers[i] =
                    new TaskManagerLocation(
                            new ResourceID(name),
                            address,
                            DATA_PORT,
                            new TaskManagerLocation.IpOnlyHostNameSupplier(address),
                            name);
        }
        return workers;
    }

    /** A blob writer in the heap, as Railyard's twin uses an in-memory blob store. */
    private static final class InMemoryBlobWriter implements BlobWriter {
        private final Map<PermanentBlobKey, byte[]> blobs = new HashMap<>();

        @Override
        public PermanentBlobKey putPermanent(JobID jobId, byte[] value) {
            PermanentBlobKey key = new PermanentBlobKey();
            blobs.put(key, value.clone());
            return key;
        }

        @Override
        public PermanentBlobKey putPermanent(JobID jobId, InputStream inputStream)
                throws IOException {
            return putPermanent(jobId, inputStream.readAllBytes());
        }

        @Override
        public boolean deletePermanent(JobID jobId, PermanentBlobKey permanentBlobKey) {
            return blobs.remove(permanentBlobKey) != null;
        }

        @Override
        public int getMinOffloadingSize() {
            return MIN_OFFLOADING_BYTES;
        }

        int size() {
            return blobs.size();
        }

        void clear() {
            blobs.clear();
        }
    }
}
