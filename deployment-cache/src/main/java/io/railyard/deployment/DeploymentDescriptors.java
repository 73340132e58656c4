package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkElementIndex;
import static com.google.common.base.Preconditions.checkState;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.Failures;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedRange;
import io.railyard.topology.VertexRuns;
import it.unimi.dsi.fastutil.ints.Int2ObjectMap;
import it.unimi.dsi.fastutil.ints.Int2ObjectOpenHashMap;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * Creates task deployment descriptors on the JobManager, encoding the shuffle descriptors of each
 * consumed partition group once and sharing the result with every consumer of the group.
 *
 * <h2>Cache</h2>
 *
 * One entry per group that has more than one consumer or is offloaded, an {@link InputDescriptor}
 * shared by every consumer of the group: the encoded {@link GroupDescriptors}, or — when {@link
 * OffloadOptions} says the group is large — the key of a blob holding them, with one reference of
 * this job in the {@link BlobStore}. A group read by one consumer and shipped inline is encoded for
 * each descriptor that reads it and not kept: caching it would save nothing but a redeployment's
 * encoding, and the million one-consumer groups of a pointwise job at P = 1,000,000 would hold
 * about 60 MB. Nor is a group of fewer than {@value #CACHE_MIN_PARTITIONS} partitions, whatever its
 * consumers: encoding it costs little more than looking it up, and the half a million two-consumer
 * groups of a pointwise fan-out at P = 1,000,000 held most of the JobManager's heap. The last such
 * group encoded is remembered instead (one field), so that its consumers, which are consecutive
 * tasks and deployed one after another, still share one encoding. An entry is dropped ({@link
 * #invalidatePartition}) when any of its partitions gets a new producer attempt or is released,
 * releasing its blob reference; the next descriptor that needs it re-encodes it. {@link #close()}
 * drops every reference of the job.
 *
 * <h2>Stepped encodings</h2>
 *
 * {@link DeploymentSlices} does not let a descriptor encode a group of {@value
 * #STEPPED_MIN_PARTITIONS} partitions or more: it first encodes the group in bounded steps ({@link
 * GroupEncoding}, via {@link #advanceInputEncoding}), held here as pending — not cached, not
 * offloaded, not counted — until its finish frames it, offloads it if large and caches it, even
 * with one consumer (its descriptor is created in a later slice; such groups are at most one per 64
 * partitions, so the memory stays O(partitions) bytes). Invalidating a partition of a pending group
 * drops the pending encoding, which starts over. {@link #create} is unchanged: it encodes what it
 * needs at once.
 *
 * <h2>Cost</h2>
 *
 * A descriptor costs O(its produced datasets × consumer edges + input edges), each step O(1) for up
 * to 512 job vertices and edges of comparable size and at worst a job-vertex or edge lookup (O(log
 * V), O(log E)), plus, for each input group not cached yet, O(the group's partitions) to encode it.
 * At 10k × 10k all-to-all, the one group is encoded once for all 10,000 consumers. Memory: a hash
 * entry per cached group and its encoding, and per pending stepped encoding an int per partition
 * and its buffers. Not thread-safe: the JobManager's main thread.
 */
public final class DeploymentDescriptors implements AutoCloseable {
    /** The fewest partitions of a group that {@link DeploymentSlices} encodes in steps. */
    static final int STEPPED_MIN_PARTITIONS = 64;

    /** The fewest partitions of a group kept in the cache (when no other rule keeps it). */
    static final int CACHE_MIN_PARTITIONS = 4;

    /** What {@link #advanceInputEncoding} returns when the next step does not fit. */
    static final int NO_ROOM = -1;

    /** The most budget units one step of a stepped encoding does. */
    static final int MAX_STEP_UNITS = 256;

    private final JobId job;
    private final JobSecret secret;
    private final ExecutionTopology topology;
    private final JobGraph graph;
    private final ShuffleDescriptorSource source;
    private final BlobStore blobs;
    private final OffloadOptions options;
    private final Int2ObjectOpenHashMap<InputDescriptor> cached; // by group: shared by consumers
    private final Int2ObjectOpenHashMap<GroupEncoding> pending; // by group: stepped, not done
    private final VertexRuns vertices; // a deployment asks for one vertex's tasks in a row
    private final int[] uniformSubpartitions; // by dataset: -1 where partitions differ
    private int lastGroup = -1; // the last small group encoded for several consumers, or -1
    private @Nullable InputDescriptor lastInput; // its input descriptor
    private long encodedGroups;
    private long encodedBytes;
    private long rawBytes;

    /**
     * A cache for {@code job}, whose descriptors carry a secret drawn now ({@link
     * JobSecret#random()}); nothing is encoded before the first descriptor. O(groups).
     */
    public DeploymentDescriptors(
            JobId job,
            ExecutionTopology topology,
            ShuffleDescriptorSource source,
            BlobStore blobs,
            OffloadOptions options) {
        this(job, JobSecret.random(), topology, source, blobs, options);
    }

    /**
     * A cache for {@code job} whose descriptors carry {@code secret}; nothing is encoded before the
     * first descriptor. O(groups).
     */
    public DeploymentDescriptors(
            JobId job,
            JobSecret secret,
            ExecutionTopology topology,
            ShuffleDescriptorSource source,
            BlobStore blobs,
            OffloadOptions options) {
        this.job = job;
        this.secret = secret;
        this.topology = topology;
        this.graph = topology.jobGraph();
        this.source = source;
        this.blobs = blobs;
        this.options = options;
        this.cached = new Int2ObjectOpenHashMap<>();
        this.pending = new Int2ObjectOpenHashMap<>();
        this.vertices = new VertexRuns(graph);
        this.uniformSubpartitions = new int[graph.numDataSets()];
        for (int d = 0; d < uniformSubpartitions.length; d++) {
            uniformSubpartitions[d] = topology.uniformSubpartitions(d);
        }
    }

    /**
     * The deployment descriptor of attempt {@code attempt} of task {@code task}.
     *
     * @throws IndexOutOfBoundsException if {@code task} is not a task id
     * @throws IllegalArgumentException if {@code attempt} is negative
     * @throws IOException if offloading a group to the blob store fails (naming the group and the
     *     store's error); groups cached before stay cached, the failed one is not
     */
    public TaskDeploymentDescriptor create(int task, int attempt) throws IOException {
        checkElementIndex(task, graph.numTasks(), "task");
        checkArgument(attempt >= 0, "attempt must be >= 0, was %s", attempt);
        ImmutableList<InputDescriptor> inputs = inputs(task, false);
        return create(task, attempt, requireNonNull(inputs));
    }

    /**
     * The deployment descriptor of attempt {@code attempt} of task {@code task} reading {@code
     * inputs} (what {@link #readyInputs} gave for it).
     */
    TaskDeploymentDescriptor create(int task, int attempt, ImmutableList<InputDescriptor> inputs) {
        int v = vertices.vertexOf(task);
        int subtask = task - vertices.firstTask();
        int datasets = graph.numProducedDataSets(v);
        ImmutableList<ProducedPartition> produced;
        if (datasets == 1) {
            produced = ImmutableList.of(produced(graph.producedDataSet(v, 0), subtask));
        } else {
            ImmutableList.Builder<ProducedPartition> builder =
                    ImmutableList.builderWithExpectedSize(datasets);
            for (int k = 0; k < datasets; k++) {
                builder.add(produced(graph.producedDataSet(v, k), subtask));
            }
            produced = builder.build();
        }
        return new TaskDeploymentDescriptor(
                job, secret, task, v, subtask, attempt, produced, inputs);
    }

    private ProducedPartition produced(int d, int subtask) {
        int uniform = uniformSubpartitions[d];
        return new ProducedPartition(
                graph.firstPartition(d) + subtask,
                d,
                uniform > 0 ? uniform : topology.numSubpartitions(d, subtask),
                graph.resultType(d));
    }

    /** The job's secret, which every descriptor of this cache carries. */
    public JobSecret secret() {
        return secret;
    }

    /**
     * The input descriptors of task {@code task}, or null if one of its input groups is to be
     * encoded in steps first: not cached and at least {@value #STEPPED_MIN_PARTITIONS} partitions
     * ({@link #advanceInputEncoding} advances it). Groups below that size that are not cached are
     * encoded here, as by {@link #create(int, int)}. O(input edges) with every group cached.
     *
     * @throws IOException as {@link #create(int, int)}
     */
    @Nullable ImmutableList<InputDescriptor> readyInputs(int task) throws IOException {
        checkElementIndex(task, graph.numTasks(), "task");
        return inputs(task, true);
    }

    private @Nullable ImmutableList<InputDescriptor> inputs(int task, boolean waitForStepped)
            throws IOException {
        int v = vertices.vertexOf(task);
        int subtask = task - vertices.firstTask();
        int n = graph.numInputEdges(v);
        // With several inputs, look first, so that a task that must wait encodes nothing in vain.
        if (waitForStepped && n > 1 && waitsForStepped(v, subtask, n)) {
            return null;
        }
        ImmutableList.Builder<InputDescriptor> inputs = ImmutableList.builderWithExpectedSize(n);
        for (int k = 0; k < n; k++) {
            int g = topology.consumedGroupOnEdge(graph.inputEdge(v, k), subtask);
            InputDescriptor input = g == lastGroup ? lastInput : cached.get(g);
            if (input == null) {
                if (waitForStepped && isStepped(g)) {
                    return null; // the only input: nothing encoded before it
                }
                input = encode(g);
            }
            // The task reads, of each partition of the group, the subpartition of its place among
            // the group's consumers (see subpartitions: one per consumer of the largest group).
            int index = task - PackedRange.start(topology.consumerRange(g));
            inputs.add(readingOne(input, index));
        }
        return inputs.build();
    }

    /**
     * The same group and shuffle descriptors (shared, not copied) read at subpartition {@code
     * index} alone; {@code input} itself if it reads just that. O(1).
     */
    private static InputDescriptor readingOne(InputDescriptor input, int index) {
        if (input.firstSubpartition() == index && input.numSubpartitions() == 1) {
            return input;
        }
        if (input instanceof InputDescriptor.Inline inline) {
            return InputDescriptor.inline(inline.group(), index, 1, inline.encodedGroup());
        } else if (input instanceof InputDescriptor.Offloaded offloaded) {
            return InputDescriptor.offloaded(offloaded.group(), index, 1, offloaded.key());
        }
        throw new AssertionError("an input is inline or offloaded, was " + input);
    }

    /** Whether an input group of subtask {@code subtask} of {@code v} waits for stepping. */
    private boolean waitsForStepped(int v, int subtask, int numInputs) {
        for (int k = 0; k < numInputs; k++) {
            int g = topology.consumedGroupOnEdge(graph.inputEdge(v, k), subtask);
            if (isStepped(g) && !cached.containsKey(g)) {
                return true;
            }
        }
        return false;
    }

    /** Whether group {@code g} is large enough to be encoded in steps when slices deploy. */
    private boolean isStepped(int g) {
        return PackedRange.size(topology.partitionRange(g)) >= STEPPED_MIN_PARTITIONS;
    }

    /** Encodes group {@code g} at once (and maybe offloads and caches it; see the class notes). */
    private InputDescriptor encode(int g) throws IOException {
        return complete(g, GroupDescriptors.encode(topology, g, source, options.compress()), false);
    }

    /**
     * Ships group {@code g}'s encoding inline or offloads it, counts it and caches it if it has
     * more than one consumer, is offloaded, or {@code keep}; a stepped encoding of it still pending
     * is then stale and discarded.
     */
    private InputDescriptor complete(int g, GroupDescriptors.Encoded encoded, boolean keep)
            throws IOException {
        int consumers = PackedRange.size(topology.consumerRange(g));
        InputDescriptor input =
                options.offloads(encoded.descriptors(), consumers, encoded.bytes().length)
                        ? InputDescriptor.offloaded(g, 0, 1, offload(g, encoded))
                        : InputDescriptor.inline(g, 0, 1, encoded.bytes());
        // Counted and cached only once nothing can fail any more: a failed put leaves no trace.
        encodedGroups++;
        encodedBytes += encoded.bytes().length;
        rawBytes += encoded.rawPayloadBytes();
        boolean small = PackedRange.size(topology.partitionRange(g)) < CACHE_MIN_PARTITIONS;
        if (keep || (consumers > 1 && !small) || input instanceof InputDescriptor.Offloaded) {
            cached.put(g, input);
            discardPending(g);
        } else if (consumers > 1) {
            lastGroup = g;
            lastInput = input;
        }
        return input;
    }

    /**
     * Advances the stepped encoding of the first input group of task {@code task} that {@link
     * #readyInputs} waits for, by one step of at most {@code min(unitsLeft, MAX_STEP_UNITS)} budget
     * units, or by its finish — framing, offloading and caching it, which is not cut — if that
     * costs at most {@code unitsLeft} or {@code freshSlice}; returns the units spent, {@link
     * #NO_ROOM} if the finish does not fit, 0 if no input of the task waits.
     *
     * <p>The encoding is not visible (not cached, not offloaded, not counted) before its finish. If
     * the source fails, the encoding is dropped and the next call starts over; if the offload
     * fails, the finished encoding stays pending and the next call retries the put.
     *
     * @throws IOException if offloading the group fails (naming the group and the store's error)
     */
    int advanceInputEncoding(int task, int unitsLeft, boolean freshSlice) throws IOException {
        checkElementIndex(task, graph.numTasks(), "task");
        checkArgument(unitsLeft >= 1, "unitsLeft must be >= 1, was %s", unitsLeft);
        int v = vertices.vertexOf(task);
        int subtask = task - vertices.firstTask();
        for (int k = 0; k < graph.numInputEdges(v); k++) {
            int g = topology.consumedGroupOnEdge(graph.inputEdge(v, k), subtask);
            if (!cached.containsKey(g) && isStepped(g)) {
                return advance(g, unitsLeft, freshSlice);
            }
        }
        return 0;
    }

    private int advance(int g, int unitsLeft, boolean freshSlice) throws IOException {
        GroupEncoding encoding = pending.get(g);
        if (encoding == null) {
            encoding = new GroupEncoding(topology, g, source, options.compress());
            pending.put(g, encoding);
        }
        if (!encoding.isStepped()) {
            try {
                return encoding.step(Math.min(unitsLeft, MAX_STEP_UNITS));
            } catch (RuntimeException e) {
                discardPending(g); // a half-done step: the next call starts over
                throw e;
            }
        }
        int units = encoding.finishUnits();
        if (units > unitsLeft && !freshSlice) {
            return NO_ROOM;
        }
        complete(g, encoding.finish(), true); // drops the pending encoding once cached
        return units;
    }

    private void discardPending(int g) {
        GroupEncoding encoding = pending.remove(g);
        if (encoding != null) {
            encoding.discard();
        }
    }

    /** Puts group {@code g}'s encoding into the blob store; a failure names the group. */
    private BlobKey offload(int g, GroupDescriptors.Encoded encoded) throws IOException {
        try {
            return blobs.put(job, encoded.bytes());
        } catch (IOException e) {
            throw new IOException(
                    String.format(
                            "offloading the shuffle descriptors of group %s (%s descriptors, %s"
                                    + " bytes; edge %s) to the blob store failed: %s; the group is"
                                    + " not cached and the next descriptor that reads it retries",
                            g,
                            encoded.descriptors(),
                            encoded.bytes().length,
                            graph.describeEdge(topology.edgeOfGroup(g)),
                            e.getMessage()),
                    e);
        }
    }

    /**
     * Partition {@code partition} got a new producer attempt or was released: the cache entries of
     * every group holding it are dropped, with their blob references. O(consumer edges) after a
     * dataset lookup (O(1) for up to 512 datasets whose producers have comparable parallelism,
     * O(log D) at worst).
     *
     * <p>Every entry is dropped even when releasing a blob fails, so that no descriptor is built
     * from stale shuffle descriptors; a reference that could not be released stays with the job
     * until {@link #close()}.
     *
     * @throws IOException if releasing a blob fails (naming the group and the blob; further
     *     failures are suppressed into the first)
     */
    public void invalidatePartition(int partition) throws IOException {
        checkElementIndex(partition, graph.numPartitions(), "partition");
        int d = graph.dataSetOfPartition(partition);
        int index = partition - graph.firstPartition(d);
        IOException failure = null;
        for (int k = 0; k < graph.numConsumerEdges(d); k++) {
            int g = topology.consumerGroupOnEdge(graph.consumerEdge(d, k), index);
            discardPending(g); // read partly before the change: start over
            if (g == lastGroup) {
                lastGroup = -1;
                lastInput = null;
            }
            if (cached.remove(g) instanceof InputDescriptor.Offloaded offloaded) {
                try {
                    blobs.release(job, offloaded.key());
                } catch (IOException e) {
                    IOException named = releaseFailed(partition, g, offloaded.key(), e);
                    if (failure == null) {
                        failure = named;
                    } else {
                        failure.addSuppressed(named);
                    }
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * The blob stored under {@code key} was found missing or corrupt (and deleted) by a reader: the
     * cache entries of every group offloaded under it are dropped with their references, so that
     * the next descriptor reading such a group encodes and offloads it again instead of naming a
     * blob that is gone. Returns how many entries were dropped. O(cached groups): a rare event.
     *
     * @throws IOException if releasing a reference fails (every entry is dropped all the same; the
     *     reference stays with the job until {@link #close()})
     */
    public int invalidateBlob(BlobKey key) throws IOException {
        requireNonNull(key, "key");
        IntArrayList groups = new IntArrayList();
        for (Int2ObjectMap.Entry<InputDescriptor> entry : cached.int2ObjectEntrySet()) {
            if (entry.getValue() instanceof InputDescriptor.Offloaded offloaded
                    && offloaded.key().equals(key)) {
                groups.add(entry.getIntKey());
            }
        }
        IOException failure = null;
        for (int i = 0; i < groups.size(); i++) {
            cached.remove(groups.getInt(i));
            try {
                blobs.release(job, key);
            } catch (IOException e) {
                failure = Failures.add(failure, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
        return groups.size();
    }

    private IOException releaseFailed(int partition, int g, BlobKey key, IOException cause) {
        return new IOException(
                String.format(
                        "releasing blob %s of group %s (edge %s) after partition %s was"
                                + " invalidated failed: %s; the entry is dropped and the job keeps"
                                + " the reference until close()",
                        key,
                        g,
                        graph.describeEdge(topology.edgeOfGroup(g)),
                        partition,
                        cause.getMessage()),
                cause);
    }

    /** The job's number of tasks (task ids are {@code [0, numTasks())}). O(1). */
    public int numTasks() {
        return graph.numTasks();
    }

    /** Whether group {@code group} is cached (inline or offloaded). O(1). */
    public boolean isCached(int group) {
        checkElementIndex(group, topology.numGroups(), "group");
        return cached.containsKey(group);
    }

    /** Stepped encodings begun and not finished (not visible yet). O(1). */
    int pendingEncodings() {
        return pending.size();
    }

    /**
     * Checks that no group is both cached and pending, and that every pending encoding is of a
     * stepped group.
     *
     * @throws IllegalStateException naming the first group that breaks it
     */
    void checkInvariants() {
        for (Int2ObjectMap.Entry<GroupEncoding> entry : pending.int2ObjectEntrySet()) {
            int g = entry.getIntKey();
            checkState(!cached.containsKey(g), "group %s is both cached and pending", g);
            checkState(
                    entry.getValue().group() == g,
                    "pending entry %s holds group %s",
                    g,
                    entry.getValue().group());
            checkState(isStepped(g), "group %s is pending but has too few partitions", g);
        }
    }

    /**
     * Group encodings made so far: each cached group once, a group that is not cached once per
     * descriptor that reads it, re-encodings after invalidation included; an encoding whose offload
     * failed is not counted.
     */
    public long encodedGroups() {
        return encodedGroups;
    }

    /**
     * Bytes of the encodings counted by {@link #encodedGroups()}, as framed (compressed if
     * smaller).
     */
    public long encodedBytes() {
        return encodedBytes;
    }

    /** Bytes of the encodings counted by {@link #encodedGroups()} before compression. */
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
        cached.clear();
        lastGroup = -1;
        lastInput = null;
        for (GroupEncoding encoding : pending.values()) {
            encoding.discard();
        }
        pending.clear();
        blobs.releaseJob(job);
    }
}
