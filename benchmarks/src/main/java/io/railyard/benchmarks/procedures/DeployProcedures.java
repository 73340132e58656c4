package io.railyard.benchmarks.procedures;

import com.google.common.collect.ImmutableList;
import io.railyard.deployment.BlobKey;
import io.railyard.deployment.DeploymentDescriptors;
import io.railyard.deployment.DeploymentSlices;
import io.railyard.deployment.GroupDescriptors;
import io.railyard.deployment.InMemoryBlobStore;
import io.railyard.deployment.InputDescriptor;
import io.railyard.deployment.JobId;
import io.railyard.deployment.OffloadOptions;
import io.railyard.deployment.SliceBudget;
import io.railyard.deployment.TaskDeploymentDescriptor;
import io.railyard.deployment.WorkerDescriptorCache;
import io.railyard.deployment.WorkerSetGroup;
import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.JobGraph;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
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

    /** The seed of the placement every deployment measurement uses. */
    static final long SEED = 20_000L;

    private DeployProcedures() {}

    /**
     * What one run of "deploy all" shipped.
     *
     * @param descriptorBytes every task's descriptor
     * @param blobBytes each offloaded group once per worker that reads it
     * @param tableBytes the worker table once per worker reached
     * @param sinkDescriptorBytes the last sink's descriptor
     * @param sharedGroupBytes the last sink's input group as encoded
     * @param sharedGroupRawBytes the same before compression
     * @param sharedGroupDescriptors its entries (partitions; workers in the worker-set shape)
     * @param workersReached workers that run at least one task
     * @param maxWorkerBytes the most bytes one worker receives (descriptors, blobs, table)
     */
    public record Shipped(
            long descriptorBytes,
            long blobBytes,
            long tableBytes,
            int sinkDescriptorBytes,
            long sharedGroupBytes,
            long sharedGroupRawBytes,
            int sharedGroupDescriptors,
            int workersReached,
            long maxWorkerBytes) {
        /**
         * Descriptors, each blob once per worker that needs it, the worker table once per worker.
         */
        public long totalBytes() {
            return descriptorBytes + blobBytes + tableBytes;
        }

        /** The mean bytes a worker that runs a task receives: {@link #totalBytes()} / workers. */
        public double meanWorkerBytes() {
            return workersReached == 0 ? 0 : totalBytes() / (double) workersReached;
        }
    }

    /**
     * Encodes the descriptors of every task of {@code topology} with a fresh cache, in slices of
     * {@link SliceBudget#DEFAULT} as a main thread would; returns the total bytes of the
     * descriptors. O(tasks + partitions of the groups).
     */
    public static long deployAll(ExecutionTopology topology, OffloadOptions options) {
        return deployAllInSlices(topology, options, SliceBudget.DEFAULT).bytes();
    }

    /**
     * The issue-18 additions to the report's deployment section: the sliced "deploy all" and the
     * worker-set shape measured at the same placement as {@link #measureShipped}.
     *
     * @param sliced the median sliced "deploy all" (by longest slice)
     * @param workerSet what the worker-set shape ships
     */
    public record Shapes(Sliced sliced, Shipped workerSet) {}

    /** Both measurements of {@link Shapes}, the sliced one the median of 5 runs. */
    public static Shapes measureShapes(ExecutionTopology topology, OffloadOptions options) {
        return new Shapes(
                medianSliced(topology, options, 5), measureWorkerSetShape(topology, options));
    }

    /**
     * What one sliced "deploy all" did.
     *
     * @param bytes total bytes of the descriptors
     * @param slices slices run
     * @param longestSliceNanos the longest slice
     * @param longestSliceTasks the most tasks in one slice
     * @param longestSliceWithoutGroupNanos the longest slice that encoded no group, neither in one
     *     go nor a step of one
     */
    public record Sliced(
            long bytes,
            int slices,
            long longestSliceNanos,
            int longestSliceTasks,
            long longestSliceWithoutGroupNanos) {}

    /**
     * "Deploy all" in slices of {@code budget}, each timed on its own: the longest slice is how
     * long the main thread is blocked at most. O(tasks + partitions of the groups).
     */
    public static Sliced deployAllInSlices(
            ExecutionTopology topology, OffloadOptions options, SliceBudget budget) {
        JobGraph graph = topology.jobGraph();
        InMemoryBlobStore blobs = new InMemoryBlobStore();
        try (DeploymentDescriptors descriptors =
                new DeploymentDescriptors(
                        JOB, topology, new RandomPlacement(graph, WORKERS, SEED), blobs, options)) {
            DeploymentSlices slices =
                    DeploymentSlices.over(descriptors, 0, graph.numTasks(), task -> 0, budget);
            long[] bytes = {0};
            DeploymentSlices.DescriptorConsumer ship =
                    (task, attempt, descriptor) -> bytes[0] += descriptor.length;
            long withoutGroup = 0;
            boolean more = true;
            while (more) {
                long groupsBefore = descriptors.encodedGroups();
                long groupUnitsBefore = slices.groupEncodingUnits();
                long start = System.nanoTime();
                more = slices.runSlice(ship);
                long nanos = System.nanoTime() - start;
                if (descriptors.encodedGroups() == groupsBefore
                        && slices.groupEncodingUnits() == groupUnitsBefore) {
                    withoutGroup = Math.max(withoutGroup, nanos);
                }
            }
            return new Sliced(
                    bytes[0],
                    slices.slices(),
                    slices.longestSliceNanos(),
                    slices.longestSliceTasks(),
                    withoutGroup);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The median over {@code runs} sliced "deploy all"s (by longest slice), after the caller has
     * warmed the JIT up (the report times {@link #deployAll} first).
     */
    public static Sliced medianSliced(
            ExecutionTopology topology, OffloadOptions options, int runs) {
        Sliced[] all = new Sliced[runs];
        for (int r = 0; r < runs; r++) {
            all[r] = deployAllInSlices(topology, options, SliceBudget.DEFAULT);
        }
        Arrays.sort(all, (a, b) -> Long.compare(a.longestSliceNanos(), b.longestSliceNanos()));
        return all[runs / 2];
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
     * group, and the bytes each worker receives. Workers decode what they receive, so the counts
     * are of bytes that decode.
     */
    public static Shipped measureShipped(ExecutionTopology topology, OffloadOptions options) {
        JobGraph graph = topology.jobGraph();
        RandomPlacement shuffle = new RandomPlacement(graph, WORKERS, SEED);
        Receipts receipts = new Receipts(shuffle);
        deployAllTo(topology, shuffle, options, receipts);
        int group = topology.consumedGroup(graph.numTasks() - 1, 0);
        return receipts.shipped(
                GroupDescriptors.encode(topology, group, shuffle, options.compress()));
    }

    /** What the workers receive during one {@link #deployAllTo}, as it arrives. */
    interface Receiver {
        /** Task {@code task}'s descriptor, encoded as {@code bytes}, reached {@code worker}. */
        void descriptor(int task, int worker, byte[] bytes);

        /** {@code worker} fetched the offloaded group {@code key}: {@code bytes} (once each). */
        void blob(int worker, BlobKey key, int bytes);
    }

    /**
     * One "deploy all" with a fresh descriptor cache and an in-memory blob store: every task's
     * descriptor encoded and handed to the worker {@code placement} puts it on, which decodes it
     * and fetches each offloaded group once; {@code receiver} hears each descriptor and fetch.
     * Workers decode what they receive, so the counts are of bytes that decode. O(tasks +
     * partitions of the groups).
     */
    static void deployAllTo(
            ExecutionTopology topology,
            RandomPlacement placement,
            OffloadOptions options,
            Receiver receiver) {
        JobGraph graph = topology.jobGraph();
        InMemoryBlobStore blobs = new InMemoryBlobStore();
        try (DeploymentDescriptors descriptors =
                new DeploymentDescriptors(JOB, topology, placement, blobs, options)) {
            WorkerDescriptorCache[] workers = new WorkerDescriptorCache[placement.workers().size()];
            for (int task = 0; task < graph.numTasks(); task++) {
                byte[] bytes = descriptors.create(task, 0).encode();
                int worker = placement.workerOfTask(task);
                receiver.descriptor(task, worker, bytes);
                if (workers[worker] == null) {
                    workers[worker] = new WorkerDescriptorCache(blobs);
                }
                for (InputDescriptor input : TaskDeploymentDescriptor.decode(bytes).inputs()) {
                    long fetchesBefore = workers[worker].fetches();
                    workers[worker].resolve(input);
                    if (workers[worker].fetches() > fetchesBefore
                            && input instanceof InputDescriptor.Offloaded offloaded) {
                        receiver.blob(worker, offloaded.key(), blobs.get(offloaded.key()).length);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * "Deploy all" in the worker-set shape ({@link WorkerSetGroup}) at the same placement as {@link
     * #measureShipped}: each input carries its group's worker set inline (a few dozen bytes), so
     * nothing is offloaded and no blob fetched; each worker receives its tasks' descriptors and the
     * worker table. The descriptors are {@link DeploymentDescriptors}' with each input's shuffle
     * descriptors replaced by the worker-set encoding; workers decode them.
     */
    public static Shipped measureWorkerSetShape(
            ExecutionTopology topology, OffloadOptions options) {
        JobGraph graph = topology.jobGraph();
        RandomPlacement shuffle = new RandomPlacement(graph, WORKERS, SEED);
        byte[][] workerSets = new byte[topology.numGroups()][];
        try (DeploymentDescriptors descriptors =
                new DeploymentDescriptors(
                        JOB, topology, shuffle, new InMemoryBlobStore(), OffloadOptions.NEVER)) {
            Receipts receipts = new Receipts(shuffle);
            for (int task = 0; task < graph.numTasks(); task++) {
                TaskDeploymentDescriptor old = descriptors.create(task, 0);
                ImmutableList.Builder<InputDescriptor> inputs = ImmutableList.builder();
                for (InputDescriptor input : old.inputs()) {
                    int g = input.group();
                    if (workerSets[g] == null) {
                        workerSets[g] =
                                WorkerSetGroup.encode(topology, g, shuffle, options.compress())
                                        .bytes();
                    }
                    inputs.add(
                            InputDescriptor.inline(
                                    g,
                                    input.firstSubpartition(),
                                    input.numSubpartitions(),
                                    workerSets[g]));
                }
                byte[] bytes =
                        new TaskDeploymentDescriptor(
                                        old.job(),
                                        old.secret(),
                                        task,
                                        old.vertex(),
                                        old.subtask(),
                                        0,
                                        old.produced(),
                                        inputs.build())
                                .encode();
                receipts.descriptor(task, shuffle.workerOfTask(task), bytes);
                for (InputDescriptor input : TaskDeploymentDescriptor.decode(bytes).inputs()) {
                    WorkerSetGroup.decode(((InputDescriptor.Inline) input).encodedGroup());
                }
            }
            int group = topology.consumedGroup(graph.numTasks() - 1, 0);
            return receipts.shipped(
                    WorkerSetGroup.encode(topology, group, shuffle, options.compress()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Bytes each worker receives during one "deploy all". */
    private static final class Receipts implements Receiver {
        private final RandomPlacement placement;
        private final long[] perWorker = new long[WORKERS];
        private final BitSet contacted = new BitSet(WORKERS);
        private long descriptorBytes;
        private long blobBytes;
        private int lastDescriptorBytes;

        Receipts(RandomPlacement placement) {
            this.placement = placement;
        }

        @Override
        public void descriptor(int task, int worker, byte[] bytes) {
            contacted.set(worker);
            perWorker[worker] += bytes.length;
            descriptorBytes += bytes.length;
            lastDescriptorBytes = bytes.length;
        }

        @Override
        public void blob(int worker, BlobKey key, int bytes) {
            perWorker[worker] += bytes;
            blobBytes += bytes;
        }

        /** The totals, with {@code shared} as the last sink's input group. */
        Shipped shipped(GroupDescriptors.Encoded shared) {
            long table = placement.workers().encode().length;
            long max = 0;
            for (int w = contacted.nextSetBit(0); w >= 0; w = contacted.nextSetBit(w + 1)) {
                max = Math.max(max, perWorker[w] + table);
            }
            return new Shipped(
                    descriptorBytes,
                    blobBytes,
                    table * contacted.cardinality(),
                    lastDescriptorBytes,
                    shared.bytes().length,
                    shared.rawPayloadBytes(),
                    shared.descriptors(),
                    contacted.cardinality(),
                    max);
        }
    }
}
