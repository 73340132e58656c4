package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkElementIndex;

import com.google.common.collect.ImmutableList;
import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedRange;
import java.io.IOException;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Creates task deployment descriptors on the JobManager, encoding the shuffle descriptors of each
 * consumed partition group once and sharing the result with every consumer of the group.
 *
 * <h2>Cache</h2>
 *
 * One entry per group, an {@link InputDescriptor} shared by every consumer of the group: the
 * encoded {@link GroupDescriptors}, or — when {@link OffloadOptions} says the group is large — the
 * key of a blob holding them, with one reference of this job in the {@link BlobStore}. An entry is
 * dropped ({@link #invalidatePartition}) when any of its partitions gets a new producer attempt or
 * is released, releasing its blob reference; the next descriptor that needs it re-encodes it.
 * {@link #close()} drops every reference of the job.
 *
 * <h2>Cost</h2>
 *
 * A descriptor costs O(its produced datasets × consumer edges + input edges), each step O(1) for up
 * to 512 job vertices and edges of comparable size and at worst a job-vertex or edge lookup (O(log
 * V), O(log E)), plus, for each input group not cached yet, O(the group's partitions) to encode it.
 * At 10k × 10k all-to-all, the one group is encoded once for all 10,000 consumers. Memory: two
 * references per group. Not thread-safe: the JobManager's main thread.
 */
public final class DeploymentDescriptors implements AutoCloseable {
    private final JobId job;
    private final ExecutionTopology topology;
    private final JobGraph graph;
    private final ShuffleDescriptorSource source;
    private final BlobStore blobs;
    private final OffloadOptions options;
    private final @Nullable InputDescriptor[] cached; // per group: shared by its consumers
    private long encodedGroups;
    private long encodedBytes;
    private long rawBytes;

    /** A cache for {@code job}; nothing is encoded before the first descriptor. O(groups). */
    public DeploymentDescriptors(
            JobId job,
            ExecutionTopology topology,
            ShuffleDescriptorSource source,
            BlobStore blobs,
            OffloadOptions options) {
        this.job = job;
        this.topology = topology;
        this.graph = topology.jobGraph();
        this.source = source;
        this.blobs = blobs;
        this.options = options;
        this.cached = new InputDescriptor[topology.numGroups()];
    }

    /**
     * The deployment descriptor of attempt {@code attempt} of task {@code task}.
     *
     * @throws IndexOutOfBoundsException if {@code task} is not a task id
     * @throws IllegalArgumentException if {@code attempt} is negative
     * @throws IOException if offloading a group to the blob store fails
     */
    public TaskDeploymentDescriptor create(int task, int attempt) throws IOException {
        checkElementIndex(task, graph.numTasks(), "task");
        checkArgument(attempt >= 0, "attempt must be >= 0, was %s", attempt);
        int v = graph.vertexOfTask(task);
        int subtask = task - graph.firstTask(v);
        ImmutableList.Builder<ProducedPartition> produced = ImmutableList.builder();
        for (int k = 0; k < graph.numProducedDataSets(v); k++) {
            int d = graph.producedDataSet(v, k);
            produced.add(
                    new ProducedPartition(
                            graph.firstPartition(d) + subtask,
                            d,
                            subpartitions(d, subtask),
                            graph.resultType(d)));
        }
        ImmutableList.Builder<InputDescriptor> inputs = ImmutableList.builder();
        for (int k = 0; k < graph.numInputEdges(v); k++) {
            inputs.add(input(topology.consumedGroupOnEdge(graph.inputEdge(v, k), subtask)));
        }
        return new TaskDeploymentDescriptor(
                job, task, v, subtask, attempt, produced.build(), inputs.build());
    }

    /** The most consumers reading partition {@code index} of dataset {@code d} on one edge. */
    private int subpartitions(int d, int index) {
        int most = 1;
        for (int k = 0; k < graph.numConsumerEdges(d); k++) {
            int g = topology.consumerGroupOnEdge(graph.consumerEdge(d, k), index);
            most = Math.max(most, PackedRange.size(topology.consumerRange(g)));
        }
        return most;
    }

    /** The input descriptor of group {@code g}, encoding (and maybe offloading) it once. */
    private InputDescriptor input(int g) throws IOException {
        InputDescriptor input = cached[g];
        if (input != null) {
            return input;
        }
        GroupDescriptors.Encoded encoded =
                GroupDescriptors.encode(topology, g, source, options.compress());
        encodedGroups++;
        encodedBytes += encoded.bytes().length;
        rawBytes += encoded.rawPayloadBytes();
        int consumers = PackedRange.size(topology.consumerRange(g));
        input =
                options.offloads(encoded.descriptors(), consumers, encoded.bytes().length)
                        ? InputDescriptor.offloaded(g, blobs.put(job, encoded.bytes()))
                        : InputDescriptor.inline(g, encoded.bytes());
        cached[g] = input;
        return input;
    }

    /**
     * Partition {@code partition} got a new producer attempt or was released: the cache entries of
     * every group holding it are dropped, with their blob references. O(consumer edges) after a
     * dataset lookup (O(1) for up to 512 datasets whose producers have comparable parallelism,
     * O(log D) at worst).
     *
     * @throws IOException if releasing a blob fails
     */
    public void invalidatePartition(int partition) throws IOException {
        checkElementIndex(partition, graph.numPartitions(), "partition");
        int d = graph.dataSetOfPartition(partition);
        int index = partition - graph.firstPartition(d);
        for (int k = 0; k < graph.numConsumerEdges(d); k++) {
            int g = topology.consumerGroupOnEdge(graph.consumerEdge(d, k), index);
            InputDescriptor input = cached[g];
            cached[g] = null;
            if (input != null && input.isOffloaded()) {
                blobs.release(job, input.blobKey());
            }
        }
    }

    /** Whether group {@code group} is cached (inline or offloaded). O(1). */
    public boolean isCached(int group) {
        checkElementIndex(group, topology.numGroups(), "group");
        return cached[group] != null;
    }

    /** Groups encoded so far (re-encodings after invalidation included). */
    public long encodedGroups() {
        return encodedGroups;
    }

    /** Bytes of all group encodings so far, as framed (compressed when it paid). */
    public long encodedBytes() {
        return encodedBytes;
    }

    /** Bytes of all group payloads so far before compression. */
    public long rawBytes() {
        return rawBytes;
    }

    /** The job's worker table, shipped once per worker. */
    public WorkerTable workers() {
        return source.workers();
    }

    /** Releases every blob reference of the job. */
    @Override
    public void close() throws IOException {
        Arrays.fill(cached, null);
        blobs.releaseJob(job);
    }
}
