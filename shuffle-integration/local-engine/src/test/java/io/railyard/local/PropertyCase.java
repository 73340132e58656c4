package io.railyard.local;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.format.FrameHeader;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ShuffleMemory;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PartitionId;
import io.railyard.topology.RandomJobGraphs;
import io.railyard.topology.ResultPartitionType;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * One case of {@link LocalEnginePropertyTest}, drawn from its seed and fault: the graph (runnable
 * by construction, with a BLOCKING edge across regions when the fault loses a partition), the job
 * and its routing oracle, the engine it runs on, and where the fault strikes. The same seed gives
 * the same graph for every fault that needs no BLOCKING edge, on the same draw of engine.
 *
 * @param seed the case's seed
 * @param fault what goes wrong
 * @param graph the job graph
 * @param job the job, failing where the fault says
 * @param oracle what each task must receive, per key
 * @param engine the engine it runs on
 * @param failingTask the task whose attempt 0 throws at record {@code failAt}, or -1
 * @param failAt a record index below what {@code failingTask} handles in any attempt, or -1
 * @param trigger the consumer vertex whose subtask 0's attempt 0 sets off the fault, or -1
 * @param lostFile the partition file deleted when {@code trigger} is deployed, or null
 */
record PropertyCase(
        long seed,
        LocalEnginePropertyTest.Fault fault,
        JobGraph graph,
        ForwardingJob job,
        RoutingOracle oracle,
        Engine engine,
        int failingTask,
        long failAt,
        int trigger,
        @Nullable String lostFile) {

    private static final RandomJobGraphs.Shape SHAPE = new RandomJobGraphs.Shape(6, 6);
    private static final long RECORDS_PER_SOURCE = 300;
    private static final int RECORD_BYTES = 32;
    private static final int[] PAGE_SIZES = {ShuffleOptions.MIN_PAGE_SIZE_BYTES, 1024, 4096};
    private static final long MOST_POOL_BYTES = 2 << 20; // a pool above its minimum, at most

    /**
     * The engine of a case.
     *
     * @param workers workers, 1 to 3
     * @param slots slots per worker: 1 or 2 (fewer than the job's tasks, often than a region's), or
     *     one per task
     * @param options the shuffle options of every worker: pages of 256 B to 4 KiB; small sort
     *     buffers (with fewer slots than tasks, large enough to hold a pipelined partition whole),
     *     gates (1 to 8 pages, over TCP more than the workers) and batches; a pool of the minimum
     *     pages to four times that (at most 2 MiB, unless the minimum is more)
     * @param minimumPages the guarantees that may coexist in one worker ({@link #pagesNeeded})
     * @param blocking SORT or HASH for BLOCKING results
     * @param restartDelay the back-off before every restart, 0 to 5 ms
     */
    record Engine(
            int workers,
            int slots,
            ShuffleOptions options,
            int minimumPages,
            PartitionKind blocking,
            Duration restartDelay) {
        /** Whether the pool holds exactly the guarantees that may coexist. */
        boolean minimumPool() {
            return options.totalPages() == minimumPages;
        }
    }

    /**
     * The case of {@code seed} under {@code fault}; the same whether its workers read in-process or
     * over TCP (gates of one page included: one stream per worker used to hang there).
     */
    static PropertyCase draw(long seed, LocalEnginePropertyTest.Fault fault) {
        SplittableRandom random = new SplittableRandom(seed);
        SplittableRandom forEngine = random.split();
        SplittableRandom forFault = random.split();
        JobGraph drawn = RunnableJobGraphs.draw(random.nextLong(), SHAPE);
        JobGraph graph =
                fault.losesPartition()
                        ? RunnableJobGraphs.withBlockingEdgeAcrossRegions(drawn, forFault)
                        : drawn;
        ForwardingJob base = ForwardingJob.of(graph, RECORDS_PER_SOURCE, RECORD_BYTES, seed);
        RoutingOracle oracle = new RoutingOracle(graph, base);
        Engine engine = drawEngine(graph, oracle, forEngine);
        int failingTask = -1;
        long failAt = -1;
        ForwardingJob job = base;
        if (fault.failsTask()) {
            // A task that handles records, failing at one it certainly reaches.
            int[] busy =
                    IntStream.range(0, graph.numTasks())
                            .filter(t -> oracle.expectedTotal(t).records() > 0)
                            .toArray();
            failingTask = busy[forFault.nextInt(busy.length)];
            failAt = forFault.nextLong(oracle.expectedTotal(failingTask).records());
            job =
                    base.failing(
                            graph.vertexOfTask(failingTask),
                            graph.subtaskIndex(failingTask),
                            0,
                            failAt);
        }
        int[] edges =
                fault.losesPartition()
                        ? RunnableJobGraphs.blockingEdgesAcrossRegions(graph)
                        : IntStream.range(0, graph.numEdges()).toArray();
        int edge = edges[forFault.nextInt(edges.length)];
        int trigger = fault.losesPartition() || fault.losesWorker() ? graph.edgeConsumer(edge) : -1;
        // Producer subtask 0's: every consumer 0 reads it (pointwise too), and it has finished when
        // consumer 0 is deployed (the edge crosses regions). Consumer 0 reads subpartition 0.
        String lostFile =
                fault.losesPartition()
                        ? new PartitionId(graph.firstPartition(graph.edgeDataSet(edge)), 0)
                                + (engine.blocking() == PartitionKind.SORT ? ".data" : ".hash.0")
                        : null;
        return new PropertyCase(
                seed, fault, graph, job, oracle, engine, failingTask, failAt, trigger, lostFile);
    }

    /**
     * The engine: workers, slots, pool, blocking kind and restart delay drawn from {@code random}.
     *
     * <p>With fewer slots than tasks, a pipelined producer may run while a consumer of it waits for
     * a slot; once it holds its bound of unconsumed pages (the sort buffer's pages), it waits
     * {@link io.railyard.shuffle.partition.HybridPartition#ABSENT_CONSUMER_WAIT_MILLIS} for that
     * consumer before it spills — a second per partition, which hundreds of cases cannot afford. So
     * those cases get a sort buffer that holds any pipelined partition of the job whole: producers
     * never wait, consumers queue for slots. Cases with a slot per task keep small sort buffers,
     * where a pipelined producer waits for its (running) consumers.
     *
     * <p>Gates get 1 to 8 pages, in-process and over TCP alike: a gate over TCP reads one stream
     * from each worker holding its partitions, and one with no more pages than streams used to wait
     * for ever (a stream's full page held the credit its next page needed).
     */
    private static Engine drawEngine(
            JobGraph graph, RoutingOracle oracle, SplittableRandom random) {
        int workers = 1 + random.nextInt(3);
        int slots = random.nextInt(3) == 0 ? graph.numTasks() : 1 + random.nextInt(2);
        PartitionKind blocking = random.nextInt(3) == 0 ? PartitionKind.HASH : PartitionKind.SORT;
        Duration delay = Duration.ofMillis(random.nextInt(6));
        int pageSize = PAGE_SIZES[random.nextInt(PAGE_SIZES.length)];
        int sortBuffer = 1 + random.nextInt(8);
        if (slots < graph.numTasks()) {
            sortBuffer = Math.max(sortBuffer, mostPipelinedPages(graph, oracle, pageSize) + 1);
        }
        ShuffleOptions shape =
                ShuffleOptions.builder()
                        .pageSizeBytes(pageSize)
                        .sortBufferPages(sortBuffer)
                        .writeBatchPages(1 + random.nextInt(4))
                        .readBatchPages(1 + random.nextInt(4))
                        .gatePages(1 + random.nextInt(8))
                        .compression(
                                random.nextBoolean()
                                        ? ShuffleOptions.Compression.LZ4
                                        : ShuffleOptions.Compression.NONE)
                        .totalPages(2)
                        .build();
        int minimum = pagesNeeded(graph, slots, blocking, shape);
        int[] factors = {1, 1, 2, 4}; // half the cases at the minimum
        long pages = (long) minimum * factors[random.nextInt(factors.length)];
        int total = (int) Math.max(minimum, Math.min(pages, MOST_POOL_BYTES / pageSize));
        return new Engine(
                workers,
                slots,
                shape.toBuilder().totalPages(total).build(),
                minimum,
                blocking,
                delay);
    }

    /**
     * The guarantees ({@link ShuffleMemory}'s figures) that may have to coexist in one worker's
     * pool while {@code graph} runs on {@code slots} slots per worker: the IO scheduler's; every
     * partition readable while written (hybrid and pipelined), which exists from its producer's
     * deployment to its release — all on one worker, at worst; and per slot, the task that needs
     * most while it runs: a writer per BLOCKING output and a gate per input.
     */
    static int pagesNeeded(
            JobGraph graph, int slots, PartitionKind blocking, ShuffleOptions options) {
        long pages = ShuffleMemory.ioSchedulerPages(options);
        for (int d = 0; d < graph.numDataSets(); d++) {
            if (graph.resultType(d) != ResultPartitionType.BLOCKING) {
                pages += (long) graph.numPartitions(d) * ShuffleMemory.hybridWriterPages(options);
            }
        }
        long mostPerTask = 0;
        for (int v = 0; v < graph.numJobVertices(); v++) {
            long task = (long) graph.numInputEdges(v) * ShuffleMemory.gatePages(options);
            for (int k = 0; k < graph.numProducedDataSets(v); k++) {
                int d = graph.producedDataSet(v, k);
                if (graph.resultType(d) == ResultPartitionType.BLOCKING) {
                    task += ShuffleMemory.writerPages(options, blocking, mostReaders(graph, d));
                }
            }
            mostPerTask = Math.max(mostPerTask, task);
        }
        pages += Math.min(slots, graph.numTasks()) * mostPerTask;
        return Math.toIntExact(pages);
    }

    /**
     * The most pages one pipelined partition of {@code graph} can hold, pages of {@code pageSize}
     * bytes: its records (what its producer receives or generates, each with a one-byte length) in
     * frames of a page at most, and a part-filled frame per subpartition.
     */
    private static int mostPipelinedPages(JobGraph graph, RoutingOracle oracle, int pageSize) {
        long most = 0;
        for (int d = 0; d < graph.numDataSets(); d++) {
            if (graph.resultType(d).mustBePipelinedConsumed()) {
                for (int i = 0; i < graph.numPartitions(d); i++) {
                    long records = oracle.expectedTotal(graph.task(graph.producer(d), i)).records();
                    long bytes = records * (RECORD_BYTES + 1);
                    long pages = bytes / (pageSize - FrameHeader.BYTES) + mostReaders(graph, d) + 1;
                    most = Math.max(most, pages);
                }
            }
        }
        return Math.toIntExact(most);
    }

    /**
     * The most consumer subtasks of one consumer vertex of dataset {@code d}: its subpartitions.
     */
    private static int mostReaders(JobGraph graph, int d) {
        int most = 1;
        for (int k = 0; k < graph.numConsumerEdges(d); k++) {
            most = Math.max(most, graph.parallelism(graph.edgeConsumer(graph.consumerEdge(d, k))));
        }
        return most;
    }

    /** The case in a line: seed, fault, engine, graph and where the fault strikes. */
    String describe() {
        StringBuilder out =
                new StringBuilder()
                        .append("seed ")
                        .append(seed)
                        .append(", ")
                        .append(fault)
                        .append(": ")
                        .append(engine.workers())
                        .append(" worker(s) × ")
                        .append(engine.slots())
                        .append(" slot(s), ")
                        .append(engine.options().totalPages())
                        .append(" pages of ")
                        .append(engine.options().pageSizeBytes())
                        .append(" B (minimum ")
                        .append(engine.minimumPages())
                        .append("; sort buffer ")
                        .append(engine.options().sortBufferPages())
                        .append(", gate ")
                        .append(engine.options().gatePages())
                        .append(", write batch ")
                        .append(engine.options().writeBatchPages())
                        .append(", read batch ")
                        .append(engine.options().readBatchPages())
                        .append(", ")
                        .append(engine.options().compression())
                        .append("), ")
                        .append(engine.blocking())
                        .append(", restart delay ")
                        .append(engine.restartDelay().toMillis())
                        .append(" ms; ")
                        .append(graph.numTasks())
                        .append(" tasks:");
        for (int v = 0; v < graph.numJobVertices(); v++) {
            out.append(' ').append(graph.vertexName(v)).append('×').append(graph.parallelism(v));
        }
        for (int e = 0; e < graph.numEdges(); e++) {
            out.append("; ").append(graph.describeEdge(e));
        }
        if (failingTask >= 0) {
            out.append("; task ").append(graph.taskName(failingTask)).append(" fails at record ");
            out.append(failAt);
        }
        if (trigger >= 0) {
            out.append("; set off by ").append(graph.vertexName(trigger)).append(" subtask 0");
            out.append(lostFile == null ? "" : ", losing " + lostFile);
        }
        return out.toString();
    }
}
