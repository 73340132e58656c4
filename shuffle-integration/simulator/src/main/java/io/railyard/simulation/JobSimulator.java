package io.railyard.simulation;

import io.railyard.failover.FailureHandling;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.failover.RestartSet;
import io.railyard.groups.ExecutionTopology;
import io.railyard.jobmaster.JobScheduler;
import io.railyard.regions.PipelinedRegions;
import io.railyard.regions.TaskRangeCursor;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.topology.AttemptId;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedRange;
import io.railyard.topology.ResultPartitionType;
import it.unimi.dsi.fastutil.booleans.BooleanArrayList;
import it.unimi.dsi.fastutil.doubles.DoubleArrayList;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.ints.IntArrays;
import it.unimi.dsi.fastutil.ints.IntHeapPriorityQueue;
import it.unimi.dsi.fastutil.ints.IntList;
import it.unimi.dsi.fastutil.longs.LongArrayFIFOQueue;
import java.time.Duration;
import java.util.BitSet;
import java.util.PriorityQueue;
import org.jspecify.annotations.Nullable;

/**
 * A discrete-event simulation of one batch job on the real scheduler core ({@link JobScheduler},
 * the one {@code JobMaster} runs on): its region scheduling strategy decides when each pipelined
 * region is deployed, its failover which regions restart after a failure and which partitions are
 * released; a simulated clock, a pool of slots and a fluid model of work stand in for the workers
 * (they are the scheduler's {@link JobScheduler.Actions}).
 *
 * <h2>Model</h2>
 *
 * <ul>
 *   <li><b>Slots.</b> {@link SimulationConfig#slots()} slots; a task holds one from its start to
 *       its end (no slot sharing; hybrid shuffle forbids it in Flink too). Deployment requests are
 *       served first come, first served, in the strategy's order (ascending topological rank within
 *       one event; within a region producers before consumers); a free slot goes to the oldest
 *       request at once.
 *   <li><b>Work.</b> Each task has work drawn from its job vertex's {@link WorkDistribution} with
 *       the run's seed; hot subtasks ({@link Skew}) get a factor of the mean; every task adds
 *       {@link SimulationConfig#taskOverhead()}. The data a producer sends over each out-edge is
 *       proportional to its work and split evenly among the consumers of each of its consumer
 *       groups.
 *   <li><b>One consumer model for every edge type.</b> A consumer processes its input at rate
 *       {@code 1 / work} and never ahead of the data that exists: a producer emits its data evenly
 *       between its start and its end ({@link GroupBound} has the formula). Under BLOCKING a
 *       consumer starts after all its producers finished, so it runs for its work; under HYBRID
 *       (either kind) it may start once its producers are scheduled and a slot is free, and then
 *       follows its producers' data — a consumer that is waiting still holds its slot, the known
 *       cost of eager scheduling; PIPELINED edges are the same inside a region that is deployed as
 *       a whole. Producers are never slowed by consumers (no back-pressure and no memory limit).
 *   <li><b>Failures.</b> A task attempt fails with probability {@link SimulationConfig#failRate()},
 *       after a uniformly drawn fraction of its work has passed in its slot. The failure goes to
 *       the real scheduler's failover (restart policy: {@link SimulationConfig#maxRestarts()}
 *       restarts, no delay); its restart set's running tasks are cancelled at once and the strategy
 *       redeploys the regions as their inputs allow. A restarted task redoes all its work.
 * </ul>
 *
 * <h2>Invariants checked in every run</h2>
 *
 * A task never starts while a BLOCKING input group produced outside its region has an unfinished
 * producer (a BLOCKING edge inside a region, left by cycle merging, is read partition by partition
 * as each producer finishes); every task attempt is deployed at most once and finishes at most
 * once; a partition is released at most once per producer attempt and every one is released by the
 * end of a finished job (blocking and hybrid ones as their consumers finish, pipelined ones as
 * their region finishes); the run never stalls with tasks left (no deadlock). A violation throws
 * {@link IllegalStateException} naming the task.
 *
 * <h2>Cost</h2>
 *
 * O(tasks + groups + regions) memory: per task its work, times, slot and counters; per group a
 * counter and its data; nothing per task-level connection. Time: the scheduler's own costs, a heap
 * operation per event, and per completed consumer group {@code O((producers + consumers) log)} for
 * the consumers already running ({@link GroupBound}). Single-threaded; each call builds its own
 * state.
 */
public final class JobSimulator {
    private static final byte IDLE = 0;
    private static final byte QUEUED = 1;
    private static final byte RUNNING = 2;
    private static final byte FINISHED = 3;

    private final JobGraph graph;
    private final ExecutionTopology topology;
    private final PipelinedRegions regions;
    private final RegionInputs inputs;
    private final JobScheduler scheduler;
    private final SimulationConfig config;
    private final FailurePlan plan;
    private final TaskRangeCursor cursor;
    private final int[] vertexRank;
    private final Tasks tasks;
    private final int[] unfinishedProducers; // per group, current attempts
    private final double[] groupData; // per group: the data its consumers share
    private final LongArrayFIFOQueue requests = new LongArrayFIFOQueue(); // AttemptId.pack
    private final IntHeapPriorityQueue freeSlots = new IntHeapPriorityQueue();
    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private final BitSet released;
    private final GroupBound groupBound = new GroupBound();
    private final GroupScratch scratch = new GroupScratch();
    private final Metrics metrics = new Metrics();
    private double now;
    private long sequence;
    private int started; // tasks whose current attempt is running or finished
    private int finishedTasks;
    private @Nullable String failure;
    private boolean ran;

    private JobSimulator(JobGraph graph, SimulationConfig config, FailurePlan plan) {
        this.graph = graph;
        this.config = config;
        this.plan = plan;
        this.released = new BitSet(graph.numPartitions());
        this.scheduler =
                new JobScheduler(
                        graph,
                        RestartBackoffPolicy.fixedDelay(config.maxRestarts(), Duration.ZERO),
                        new SimulatedWorkers());
        this.topology = scheduler.topology();
        this.regions = scheduler.regions();
        this.inputs = scheduler.strategy().inputs();
        this.cursor = regions.newTaskRangeCursor();
        this.vertexRank = new int[graph.numJobVertices()];
        int[] order = graph.topologicalOrder();
        for (int i = 0; i < order.length; i++) {
            vertexRank[order[i]] = i;
        }
        this.tasks = new Tasks(graph.numTasks());
        this.unfinishedProducers = new int[topology.numGroups()];
        this.groupData = new double[topology.numGroups()];
        WorkSampler.sample(graph, config, tasks.work);
        for (int s = 0; s < config.slots(); s++) {
            freeSlots.enqueue(s);
        }
    }

    /**
     * Simulates {@code graph} (edge types as given; see {@link ShuffleMode#apply}) under {@code
     * config}: {@code of(graph, config).run()}.
     *
     * @throws IllegalArgumentException if {@code config} names a job vertex the graph lacks, or
     *     skews more subtasks than a vertex has
     * @throws IllegalStateException if a scheduler invariant is broken (see the class notes)
     */
    public static SimulationResult simulate(JobGraph graph, SimulationConfig config) {
        return of(graph, config).run();
    }

    /**
     * A simulation of {@code graph} under {@code config}, built (topology, regions, scheduler,
     * failover, work samples: O(tasks + groups + regions)) but not run.
     *
     * @throws IllegalArgumentException as {@link #simulate}
     */
    public static JobSimulator of(JobGraph graph, SimulationConfig config) {
        return of(graph, config, WorkSampler.failures(config));
    }

    /** {@link #of(JobGraph, SimulationConfig)} with the failures {@code plan} decides. */
    static JobSimulator of(JobGraph graph, SimulationConfig config, FailurePlan plan) {
        WorkSampler.check(graph, config);
        return new JobSimulator(graph, config, plan);
    }

    /** {@link #simulate} with the failures {@code plan} decides. */
    static SimulationResult simulate(JobGraph graph, SimulationConfig config, FailurePlan plan) {
        return of(graph, config, plan).run();
    }

    /** Which task attempts fail, and when. */
    @FunctionalInterface
    interface FailurePlan {
        /**
         * The fraction of its work after which attempt {@code attempt} of {@code task} fails, in
         * {@code [0, 1)}, or a negative number if it does not fail.
         */
        double failAt(int task, int attempt);
    }

    /**
     * Runs the simulation to its end: every task finished, or the restart policy gave up. Call
     * once. The simulator keeps its state (and the trace) afterwards.
     *
     * @throws IllegalStateException if called twice, or if a scheduler invariant is broken
     */
    public SimulationResult run() {
        if (ran) {
            throw new IllegalStateException("this simulation has run; build another with of()");
        }
        ran = true;
        initGroups();
        scheduler.start();
        assignSlots();
        while (failure == null && !events.isEmpty()) {
            Event event = events.poll();
            advanceTo(event.time());
            switch (event.kind()) {
                case FINISH -> onFinish(event.task(), event.attempt());
                case FAIL -> onFail(event.task(), event.attempt());
                case RESTART -> onRestart(event.handling());
            }
            assignSlots();
        }
        if (failure == null) {
            checkComplete();
        }
        return metrics.result(graph, config.slots(), failure, now);
    }

    private void initGroups() {
        for (int g = 0; g < topology.numGroups(); g++) {
            long partitions = topology.partitionRange(g);
            unfinishedProducers[g] = PackedRange.size(partitions);
            double data = 0;
            for (int p = PackedRange.start(partitions); p < PackedRange.end(partitions); p++) {
                data += tasks.work[topology.producerTask(p)];
            }
            groupData[g] = data / PackedRange.size(topology.consumerRange(g));
            if (!topology.resultType(g).mustBePipelinedConsumed()) {
                metrics.dataTotal += data;
            }
        }
    }

    /** Moves the clock, accounting the idle slots while tasks wait to start. */
    private void advanceTo(double time) {
        int waiting = graph.numTasks() - started;
        metrics.resourceGap += (time - now) * Math.min(freeSlots.size(), waiting);
        now = time;
    }

    /** Gives free slots to the oldest requests. */
    private void assignSlots() {
        while (failure == null && !freeSlots.isEmpty() && !requests.isEmpty()) {
            long request = requests.dequeueLong();
            int task = AttemptId.task(request);
            int attempt = AttemptId.attempt(request);
            if (tasks.state[task] == QUEUED && attempt == scheduler.attempt(task)) {
                start(task, attempt, freeSlots.dequeueInt());
            }
        }
    }

    /** Requests a slot for every task of {@code region}, producers' job vertices first. */
    private void request(int region) {
        IntArrayList ranges = scratch.ranges;
        ranges.clear();
        cursor.reset(region);
        while (cursor.next()) {
            ranges.add(cursor.start());
            ranges.add(cursor.end());
        }
        int n = ranges.size() / 2;
        int[] byRank = scratch.order(n);
        if (n > 1) { // a singleton region has one range: nothing to order
            sortByRank(ranges, byRank, n);
        }
        for (int i = 0; i < n; i++) {
            for (int task = ranges.getInt(2 * byRank[i]);
                    task < ranges.getInt(2 * byRank[i] + 1);
                    task++) {
                int attempt = scheduler.attempt(task);
                if (tasks.requested[task] == attempt + 1) {
                    throw broken(task, "deployed twice in attempt " + attempt);
                }
                tasks.requested[task] = attempt + 1;
                tasks.state[task] = QUEUED;
                requests.enqueue(AttemptId.pack(task, attempt));
            }
        }
    }

    /** Orders the first {@code n} ranges (by index in {@code byRank}) by their vertex's rank. */
    private void sortByRank(IntArrayList ranges, int[] byRank, int n) {
        IntArrays.quickSort(
                byRank,
                0,
                n,
                (a, b) ->
                        Integer.compare(
                                vertexRank[graph.vertexOfTask(ranges.getInt(2 * a))],
                                vertexRank[graph.vertexOfTask(ranges.getInt(2 * b))]));
    }

    private void start(int task, int attempt, int slot) {
        tasks.state[task] = RUNNING;
        tasks.slot[task] = slot;
        tasks.start[task] = now;
        started++;
        double work = tasks.work[task];
        tasks.bound[task] = now + work;
        int pending = 0;
        for (int k = 0; k < topology.numConsumedGroups(task); k++) {
            int g = topology.consumedGroup(task, k);
            ResultPartitionType type = topology.resultType(g);
            if (unfinishedProducers[g] > 0) {
                if (type.isBlocking() && inputs.kind(g) == RegionInputs.PLAIN) {
                    throw broken(task, "started while its BLOCKING input group " + g + " runs");
                }
                pending++;
            } else if (type == ResultPartitionType.HYBRID_SELECTIVE) {
                metrics.dataToDisk += groupData[g]; // all of it was produced before the start
            }
        }
        tasks.pending[task] = pending;
        if (pending == 0) {
            schedule(now + work, EventKind.FINISH, task, attempt, null);
        }
        double failAt = plan.failAt(task, attempt);
        if (failAt >= 0) {
            schedule(now + failAt * work, EventKind.FAIL, task, attempt, null);
        }
    }

    private void onFinish(int task, int attempt) {
        if (tasks.state[task] != RUNNING || attempt != scheduler.attempt(task)) {
            return; // a cancelled attempt's end
        }
        tasks.state[task] = FINISHED;
        tasks.end[task] = now;
        finishedTasks++;
        freeSlots.enqueue(tasks.slot[task]);
        double work = tasks.work[task];
        metrics.attempt(task, tasks.slot[task], tasks.start[task], now, work, true);
        metrics.waitingInSlot += Math.max(0, now - tasks.start[task] - work);
        if (!scheduler.onTaskFinished(task, attempt)) {
            throw broken(
                    task, "attempt " + attempt + " finished but the scheduler called it stale");
        }
        int v = graph.vertexOfTask(task);
        int subtask = graph.subtaskIndex(task);
        for (int k = 0; k < graph.numProducedDataSets(v); k++) {
            int d = graph.producedDataSet(v, k);
            ResultPartitionType type = graph.resultType(d);
            if (type == ResultPartitionType.BLOCKING || type == ResultPartitionType.HYBRID_FULL) {
                metrics.dataToDisk += work * graph.numConsumerEdges(d);
            }
            int partition = graph.firstPartition(d) + subtask;
            for (int c = 0; c < topology.numConsumerGroups(partition); c++) {
                int g = topology.consumerGroup(partition, c);
                if (--unfinishedProducers[g] == 0) {
                    completeGroup(g);
                }
            }
        }
    }

    /** Every producer of group {@code g} finished: its running consumers learn their bound. */
    private void completeGroup(int g) {
        long consumers = topology.consumerRange(g);
        int m = 0;
        scratch.consumers(PackedRange.size(consumers));
        for (int c = PackedRange.start(consumers); c < PackedRange.end(consumers); c++) {
            if (tasks.state[c] == RUNNING) {
                if (tasks.pending[c] <= 0) {
                    throw broken(c, "runs on input group " + g + " that completed twice");
                }
                scratch.consumer[m] = c;
                scratch.cStart[m] = tasks.start[c];
                scratch.cWork[m] = tasks.work[c];
                m++;
            }
        }
        if (m == 0) {
            return;
        }
        long partitions = topology.partitionRange(g);
        int n = PackedRange.size(partitions);
        scratch.producers(n);
        boolean blocking = topology.resultType(g).isBlocking(); // readable once finished
        for (int i = 0; i < n; i++) {
            int p = topology.producerTask(PackedRange.start(partitions) + i);
            scratch.pStart[i] = blocking ? tasks.end[p] : tasks.start[p];
            scratch.pEnd[i] = tasks.end[p];
            scratch.pWork[i] = tasks.work[p];
        }
        groupBound.evaluate(
                scratch.pStart,
                scratch.pEnd,
                scratch.pWork,
                n,
                scratch.cStart,
                scratch.cWork,
                m,
                scratch.bound,
                scratch.available);
        boolean selective = topology.resultType(g) == ResultPartitionType.HYBRID_SELECTIVE;
        for (int i = 0; i < m; i++) {
            int c = scratch.consumer[i];
            tasks.bound[c] = Math.max(tasks.bound[c], scratch.bound[i]);
            if (selective) {
                metrics.dataToDisk += groupData[g] * scratch.available[i];
            }
            if (--tasks.pending[c] == 0) {
                schedule(tasks.bound[c], EventKind.FINISH, c, scheduler.attempt(c), null);
            }
        }
    }

    private void onFail(int task, int attempt) {
        if (tasks.state[task] != RUNNING || attempt != scheduler.attempt(task)) {
            return; // cancelled before it could fail
        }
        Exception cause = new SimulatedFailure(graph.taskName(task), attempt);
        FailureHandling handling = scheduler.onTaskFailed(task, attempt, cause);
        if (handling instanceof FailureHandling.Restart restart) {
            metrics.restarts++;
            schedule(now + restart.delayMillis(), EventKind.RESTART, -1, -1, restart);
        } else if (handling instanceof FailureHandling.FailJob failJob) {
            failure = failJob.failure().getMessage();
        } else {
            throw broken(task, "failure of its current attempt was ignored");
        }
    }

    private void onRestart(FailureHandling.@Nullable Restart handling) {
        if (handling == null || failure != null) {
            return;
        }
        scheduler.restart(handling);
    }

    /** Cancels the running tasks of a restart set; finished ones reopen their consumer groups. */
    private void stop(RestartSet set) {
        for (int i = 0; i < set.numRanges(); i++) {
            for (int task = set.rangeStart(i); task < set.rangeEnd(i); task++) {
                byte state = tasks.state[task];
                if (state == RUNNING) {
                    cancel(task);
                } else if (state == FINISHED) {
                    reopen(task);
                }
                tasks.state[task] = IDLE;
            }
        }
    }

    private void cancel(int task) {
        double held = now - tasks.start[task];
        metrics.restartWork += held;
        metrics.attempt(
                task,
                tasks.slot[task],
                tasks.start[task],
                now,
                Math.min(held, tasks.work[task]),
                false);
        freeSlots.enqueue(tasks.slot[task]);
        started--;
    }

    /** A finished task restarts: its consumer groups wait for it again, its partitions are new. */
    private void reopen(int task) {
        finishedTasks--;
        started--;
        int v = graph.vertexOfTask(task);
        for (int k = 0; k < graph.numProducedDataSets(v); k++) {
            int partition =
                    graph.firstPartition(graph.producedDataSet(v, k)) + graph.subtaskIndex(task);
            released.clear(partition);
            for (int c = 0; c < topology.numConsumerGroups(partition); c++) {
                unfinishedProducers[topology.consumerGroup(partition, c)]++;
            }
        }
    }

    private void stopAll() {
        for (int task = 0; task < graph.numTasks(); task++) {
            if (tasks.state[task] == RUNNING) {
                cancel(task);
                tasks.state[task] = IDLE;
            }
        }
    }

    private void checkComplete() {
        if (finishedTasks != graph.numTasks()) {
            int task = 0;
            while (tasks.state[task] == FINISHED) {
                task++;
            }
            throw broken(
                    task,
                    "never finished: the run stalled at time "
                            + now
                            + " with "
                            + (graph.numTasks() - finishedTasks)
                            + " tasks left (deadlock)");
        }
        for (int p = 0; p < graph.numPartitions(); p++) {
            if (!released.get(p)) {
                throw new IllegalStateException(
                        "scheduler invariant broken: partition " + p + " was never released");
            }
        }
    }

    private void schedule(
            double time,
            EventKind kind,
            int task,
            int attempt,
            FailureHandling.@Nullable Restart handling) {
        events.add(new Event(time, sequence++, kind, task, attempt, handling));
    }

    private IllegalStateException broken(int task, String what) {
        return new IllegalStateException(
                "scheduler invariant broken: task " + graph.taskName(task) + " " + what);
    }

    /**
     * The scheduler's decisions in the simulation: deployed regions request slots, a restart set's
     * tasks stop, a failed job stops everything; every released partition is checked to be released
     * once per producer attempt.
     */
    private final class SimulatedWorkers implements JobScheduler.Actions {
        @Override
        public void deploy(IntList scheduled) {
            for (int i = 0; i < scheduled.size(); i++) {
                request(scheduled.getInt(i));
            }
        }

        @Override
        public void stop(RestartSet set) {
            JobSimulator.this.stop(set);
        }

        @Override
        public void stopAll() {
            JobSimulator.this.stopAll();
        }

        @Override
        public void release(int from, int to) {
            if (failure != null || scheduler.failover().isJobFailed()) {
                return; // the job failed: everything is released, checks are moot
            }
            for (int p = from; p < to; p++) {
                if (released.get(p)) {
                    throw new IllegalStateException(
                            "scheduler invariant broken: partition " + p + " released twice");
                }
                released.set(p);
            }
            metrics.partitionsReleased += to - from;
        }
    }

    private enum EventKind {
        FINISH,
        FAIL,
        RESTART
    }

    private record Event(
            double time,
            long sequence,
            EventKind kind,
            int task,
            int attempt,
            FailureHandling.@Nullable Restart handling)
            implements Comparable<Event> {
        @Override
        public int compareTo(Event other) {
            int byTime = Double.compare(time, other.time);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }

    /** A simulated task failure (no stack trace: it is not a program error). */
    private static final class SimulatedFailure extends Exception {
        private static final long serialVersionUID = 1L;

        SimulatedFailure(String task, int attempt) {
            super("simulated failure of " + task + ", attempt " + attempt, null, false, false);
        }
    }

    /** Per-task state, columns indexed by task id. */
    private static final class Tasks {
        final double[] work;
        final double[] start;
        final double[] end;
        final double[] bound; // the latest input bound known for the running attempt
        final int[] pending; // input groups of the running attempt still producing
        final int[] slot;
        final int[] requested; // 1 + the attempt last requested, 0 if none
        final byte[] state;

        Tasks(int n) {
            work = new double[n];
            start = new double[n];
            end = new double[n];
            bound = new double[n];
            pending = new int[n];
            slot = new int[n];
            requested = new int[n];
            state = new byte[n];
        }
    }

    /** Growable scratch columns for one group's evaluation and one region's ranges. */
    private static final class GroupScratch {
        final IntArrayList ranges = new IntArrayList();
        int[] order = new int[0];
        int[] consumer = new int[0];
        double[] cStart = new double[0];
        double[] cWork = new double[0];
        double[] bound = new double[0];
        double[] available = new double[0];
        double[] pStart = new double[0];
        double[] pEnd = new double[0];
        double[] pWork = new double[0];

        int[] order(int n) {
            if (order.length < n) {
                order = new int[n];
            }
            for (int i = 0; i < n; i++) {
                order[i] = i;
            }
            return order;
        }

        void consumers(int m) {
            if (consumer.length < m) {
                consumer = new int[m];
                cStart = new double[m];
                cWork = new double[m];
                bound = new double[m];
                available = new double[m];
            }
        }

        void producers(int n) {
            if (pStart.length < n) {
                pStart = new double[n];
                pEnd = new double[n];
                pWork = new double[n];
            }
        }
    }

    /** The sums and the trace of one run. */
    private static final class Metrics {
        final IntArrayList task = new IntArrayList();
        final IntArrayList slot = new IntArrayList();
        final DoubleArrayList start = new DoubleArrayList();
        final DoubleArrayList end = new DoubleArrayList();
        final DoubleArrayList busy = new DoubleArrayList();
        final BooleanArrayList finished = new BooleanArrayList();
        double slotTime;
        double busyTime;
        double waitingInSlot;
        double resourceGap;
        double restartWork;
        double dataTotal;
        double dataToDisk;
        long partitionsReleased;
        int restarts;

        void attempt(int t, int s, double from, double to, double work, boolean done) {
            task.add(t);
            slot.add(s);
            start.add(from);
            end.add(to);
            busy.add(work);
            finished.add(done);
            slotTime += to - from;
            busyTime += work;
        }

        /** The result; the trace moves into it (the lists are emptied and trimmed). */
        SimulationResult result(JobGraph graph, int slots, @Nullable String failure, double now) {
            SimulationResult.Trace trace =
                    new SimulationResult.Trace(
                            task.toIntArray(),
                            slot.toIntArray(),
                            start.toDoubleArray(),
                            end.toDoubleArray(),
                            busy.toDoubleArray(),
                            finished.toBooleanArray());
            task.clear();
            task.trim();
            slot.clear();
            slot.trim();
            start.clear();
            start.trim();
            end.clear();
            end.trim();
            busy.clear();
            busy.trim();
            finished.clear();
            finished.trim();
            return new SimulationResult(
                    graph,
                    slots,
                    failure == null
                            ? SimulationResult.FINISHED
                            : new SimulationResult.Failed(failure),
                    now,
                    new SimulationResult.SlotTime(
                            slotTime, busyTime, waitingInSlot, resourceGap, restartWork),
                    new SimulationResult.Data(dataTotal, dataToDisk),
                    new SimulationResult.Decisions(restarts, partitionsReleased),
                    trace);
        }
    }
}
