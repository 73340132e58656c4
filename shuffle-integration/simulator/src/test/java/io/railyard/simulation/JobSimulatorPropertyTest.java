package io.railyard.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.groups.ExecutionTopology;
import io.railyard.regions.PipelinedRegions;
import io.railyard.topology.DistributionPattern;
import io.railyard.topology.JobGraph;
import io.railyard.topology.JobGraphBuilder;
import io.railyard.topology.ResultPartitionType;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random job graphs (every pattern and edge type), slots, work, skew and failure rates: every run
 * ends (the simulator's own invariant checks throw otherwise), and the trace obeys the rules
 * checked here from the outside — one task per slot at a time, every task finished exactly once, a
 * BLOCKING consumer's last attempt starting after its producers' last attempts ended, no consumer
 * finishing before its producers — and the same seed gives the same result.
 */
class JobSimulatorPropertyTest {
    private static final ResultPartitionType[] TYPES = {
        ResultPartitionType.PIPELINED,
        ResultPartitionType.BLOCKING,
        ResultPartitionType.HYBRID_FULL,
        ResultPartitionType.HYBRID_SELECTIVE
    };

    static LongStream seeds() {
        return LongStream.rangeClosed(1, 150);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void everyRunEndsAndItsTraceObeysTheRules(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        JobGraph graph = randomGraph(random);
        SimulationConfig config =
                SimulationConfig.builder(1 + random.nextInt(30))
                        .work(new WorkDistribution.LogNormal(1 + random.nextInt(5), 0.7))
                        .skew(new Skew(graph.vertexName(0), 1, 2 + random.nextInt(20)))
                        .failRate(random.nextInt(3) == 0 ? 0 : random.nextDouble(0.15))
                        .maxRestarts(100_000)
                        .seed(seed)
                        .build();
        SimulationResult result = JobSimulator.simulate(graph, config);
        assertThat(result.outcome()).isEqualTo(SimulationResult.FINISHED);
        checkTrace(graph, result);
        SimulationResult again = JobSimulator.simulate(graph, config);
        assertThat(again.makespan()).isEqualTo(result.makespan());
        assertThat(again.decisions().restarts()).isEqualTo(result.decisions().restarts());
        assertThat(again.data().toDisk()).isEqualTo(result.data().toDisk());
        assertThat(again.trace().size()).isEqualTo(result.trace().size());
    }

    static JobGraph randomGraph(SplittableRandom random) {
        int vertices = 2 + random.nextInt(5);
        JobGraphBuilder builder = JobGraph.builder();
        for (int v = 0; v < vertices; v++) {
            builder.addVertex("v" + v, 1 + random.nextInt(12));
        }
        for (int v = 1; v < vertices; v++) {
            int inputs = 1 + random.nextInt(Math.min(v, 2));
            boolean[] used = new boolean[v];
            for (int k = 0; k < inputs; k++) {
                int from = random.nextInt(v);
                if (used[from]) {
                    continue;
                }
                used[from] = true;
                builder.connect(
                        "v" + from,
                        "v" + v,
                        random.nextBoolean()
                                ? DistributionPattern.ALL_TO_ALL
                                : DistributionPattern.POINTWISE,
                        TYPES[random.nextInt(TYPES.length)]);
            }
        }
        return builder.build();
    }

    private static void checkTrace(JobGraph graph, SimulationResult result) {
        SimulationResult.Trace trace = result.trace();
        int n = graph.numTasks();
        double[] lastStart = new double[n];
        double[] lastEnd = new double[n];
        int[] finishes = new int[n];
        double makespan = 0;
        for (int i = 0; i < trace.size(); i++) {
            if (trace.finished(i)) {
                finishes[trace.task(i)]++;
                lastStart[trace.task(i)] = trace.start(i);
                lastEnd[trace.task(i)] = trace.end(i);
            }
            makespan = Math.max(makespan, trace.end(i));
        }
        assertThat(finishes).as("finished attempts per task").doesNotContain(0);
        assertThat(result.makespan()).isEqualTo(makespan);
        checkSlots(trace, result.slots());
        PipelinedRegions regions = PipelinedRegions.build(ExecutionTopology.of(graph));
        for (int e = 0; e < graph.numEdges(); e++) {
            int producer = graph.edgeProducer(e);
            int consumer = graph.edgeConsumer(e);
            double producersEnd = 0;
            for (int t = graph.firstTask(producer);
                    t < graph.firstTask(producer) + graph.parallelism(producer);
                    t++) {
                producersEnd = Math.max(producersEnd, lastEnd[t]);
            }
            for (int t = graph.firstTask(consumer);
                    t < graph.firstTask(consumer) + graph.parallelism(consumer);
                    t++) {
                if (graph.edgeResultType(e) == ResultPartitionType.BLOCKING
                        && graph.edgePattern(e) == DistributionPattern.ALL_TO_ALL
                        && regions.regionOf(t) != regions.regionOf(graph.firstTask(producer))) {
                    assertThat(lastStart[t])
                            .as(graph.describeEdge(e))
                            .isGreaterThanOrEqualTo(producersEnd);
                }
                if (graph.edgePattern(e) == DistributionPattern.ALL_TO_ALL) {
                    assertThat(lastEnd[t])
                            .as(graph.describeEdge(e))
                            .isGreaterThanOrEqualTo(producersEnd);
                }
            }
        }
    }

    /** No two attempts on one slot overlap. */
    private static void checkSlots(SimulationResult.Trace trace, int slots) {
        Integer[] order = new Integer[trace.size()];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, (a, b) -> Double.compare(trace.start(a), trace.start(b)));
        double[] busyUntil = new double[slots];
        for (int i : order) {
            assertThat(trace.start(i))
                    .as("slot %d", trace.slot(i))
                    .isGreaterThanOrEqualTo(busyUntil[trace.slot(i)]);
            busyUntil[trace.slot(i)] = trace.end(i);
        }
    }
}
