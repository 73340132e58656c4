package io.railyard.benchmarks.procedures;

import io.railyard.deployment.DeploymentDescriptors;
import io.railyard.deployment.GroupDescriptors;
import io.railyard.deployment.InMemoryBlobStore;
import io.railyard.deployment.InputDescriptor;
import io.railyard.deployment.JobId;
import io.railyard.deployment.OffloadOptions;
import io.railyard.deployment.TaskDeploymentDescriptor;
import io.railyard.deployment.WorkerDescriptorCache;
import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.JobGraph;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.BitSet;

/**
 * The procedure "deploy all": create and encode the deployment descriptors of every task of a job,
 * as the JobManager ships them, with the groups' shuffle descriptors encoded once and offloaded or
 * inline; shared by its JMH benchmark, its CI twin and the scale report. Tasks are placed on {@link
 * #WORKERS} workers at random (seeded), which gives the worker column no pattern to exploit; the
 * blob store is in memory (the procedure measures descriptor work, not a disk).
 */
public final class DeployProcedures {
    /** Workers the tasks are spread over. */
    public static final int WORKERS = 1_000;

    private static final JobId JOB = new JobId(0x7261696c79617264L, 1L);
    private static final long SEED = 20_000L;

    private DeployProcedures() {}

    /** What one run of "deploy all" shipped. */
    public record Shipped(
            long descriptorBytes,
            long blobBytes,
            long tableBytes,
            int sinkDescriptorBytes,
            long sharedGroupBytes,
            long sharedGroupRawBytes,
            int sharedGroupDescriptors) {
        /**
         * Descriptors, each blob once per worker that needs it, the worker table once per worker.
         */
        public long totalBytes() {
            return descriptorBytes + blobBytes + tableBytes;
        }
    }

    /**
     * Encodes the descriptors of every task of {@code topology} with a fresh cache; returns the
     * total bytes of the descriptors. O(tasks + partitions of the groups).
     */
    public static long deployAll(ExecutionTopology topology, OffloadOptions options) {
        JobGraph graph = topology.jobGraph();
        InMemoryBlobStore blobs = new InMemoryBlobStore();
        try (DeploymentDescriptors descriptors =
                new DeploymentDescriptors(
                        JOB, topology, new RandomPlacement(graph, WORKERS, SEED), blobs, options)) {
            long bytes = 0;
            for (int task = 0; task < graph.numTasks(); task++) {
                bytes += descriptors.create(task, 0).encode().length;
            }
            return bytes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The encoded all-to-all group of the reference job at {@code parallelism}, compressed, with
     * the producers placed as in {@link #deployAll}: what a worker fetches and decodes once.
     */
    public static byte[] encodeSharedGroup(int parallelism) {
        ExecutionTopology topology = ExecutionTopology.of(ReferenceJobs.reference(parallelism));
        RandomPlacement shuffle = new RandomPlacement(topology.jobGraph(), WORKERS, SEED);
        return GroupDescriptors.encode(topology, 0, shuffle, true).bytes();
    }

    /**
     * One "deploy all" with everything counted: descriptor bytes, the blobs each worker fetches
     * once, the worker table once per worker, the last sink's descriptor and the first sink's input
     * group. Workers decode what they receive, so the counts are of bytes that decode.
     */
    public static Shipped measureShipped(ExecutionTopology topology, OffloadOptions options) {
        JobGraph graph = topology.jobGraph();
        InMemoryBlobStore blobs = new InMemoryBlobStore();
        RandomPlacement shuffle = new RandomPlacement(graph, WORKERS, SEED);
        try (DeploymentDescriptors descriptors =
                new DeploymentDescriptors(JOB, topology, shuffle, blobs, options)) {
            WorkerDescriptorCache[] workers = new WorkerDescriptorCache[WORKERS];
            BitSet contacted = new BitSet(WORKERS);
            long descriptorBytes = 0;
            long blobBytes = 0;
            int sinkBytes = 0;
            for (int task = 0; task < graph.numTasks(); task++) {
                byte[] bytes = descriptors.create(task, 0).encode();
                descriptorBytes += bytes.length;
                sinkBytes = bytes.length;
                int worker = shuffle.workerOfTask(task);
                contacted.set(worker);
                if (workers[worker] == null) {
                    workers[worker] = new WorkerDescriptorCache(blobs);
                }
                for (InputDescriptor input : TaskDeploymentDescriptor.decode(bytes).inputs()) {
                    long fetchesBefore = workers[worker].fetches();
                    workers[worker].resolve(input);
                    if (workers[worker].fetches() > fetchesBefore) {
                        blobBytes += blobs.get(input.blobKey()).length;
                    }
                }
            }
            long tableBytes = (long) shuffle.workers().encode().length * contacted.cardinality();
            int sink = graph.numTasks() - 1;
            int group = topology.consumedGroup(sink, 0);
            GroupDescriptors.Encoded shared =
                    GroupDescriptors.encode(topology, group, shuffle, options.compress());
            return new Shipped(
                    descriptorBytes,
                    blobBytes,
                    tableBytes,
                    sinkBytes,
                    shared.bytes().length,
                    shared.rawPayloadBytes(),
                    shared.descriptors());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
