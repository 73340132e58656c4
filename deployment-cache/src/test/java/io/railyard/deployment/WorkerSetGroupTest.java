package io.railyard.deployment;

import static io.railyard.topology.DistributionPattern.ALL_TO_ALL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.groups.ExecutionTopology;
import io.railyard.topology.JobGraph;
import io.railyard.topology.PackedRange;
import io.railyard.topology.ResultPartitionType;
import java.util.Arrays;
import java.util.BitSet;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The worker-set shape against the per-partition {@link GroupDescriptors} as the oracle: the same
 * workers, attempts and connection indices, and every partition of the range served by exactly one
 * producing worker's {@link LocalPartitionIndex}.
 */
class WorkerSetGroupTest {

    private static ExecutionTopology allToAll(int parallelism) {
        // two consumer vertices so that workers also hold partitions of another dataset
        return ExecutionTopology.of(
                JobGraph.builder()
                        .addVertex("source", parallelism)
                        .addVertex("other", parallelism)
                        .addVertex("sink", parallelism)
                        .connect("source", "sink", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                        .connect("other", "sink", ALL_TO_ALL, ResultPartitionType.BLOCKING)
                        .build());
    }

    @ParameterizedTest(name = "P = {0} over {1} workers")
    @CsvSource({"10000, 1000", "2000, 1000", "30, 1000", "1, 5", "500, 7"})
    void decoded_matchesThePerPartitionOracle_andEachPartitionIsServedOnce(int p, int workers) {
        ExecutionTopology topology = allToAll(p);
        StaticShuffleDescriptors shuffle =
                StaticShuffleDescriptors.randomPlacement(topology.jobGraph(), workers, p + 31L);
        for (int task = 0; task < p; task += 7) {
            shuffle.setProducerAttempt(task, 2); // a few restarted producers
        }
        for (int g = 0; g < topology.numGroups(); g++) {
            WorkerSetGroup set =
                    WorkerSetGroup.decode(
                            WorkerSetGroup.encode(topology, g, shuffle, true).bytes());
            GroupDescriptors oracle =
                    GroupDescriptors.decode(
                            GroupDescriptors.encode(topology, g, shuffle, true).bytes());
            assertThat(set.group()).isEqualTo(g);
            assertThat(set.firstPartition()).isEqualTo(oracle.firstPartition());
            assertThat(set.size()).isEqualTo(oracle.size());
            TreeSet<Integer> expected = new TreeSet<>();
            int restarted = 0;
            for (int i = 0; i < oracle.size(); i++) {
                restarted += oracle.producerAttempt(i) != 0 ? 1 : 0;
            }
            // the base attempt is the majority's: the exceptions are the minority
            int exceptions = Math.min(restarted, oracle.size() - restarted);
            for (int i = 0; i < oracle.size(); i++) {
                expected.add(oracle.worker(i));
                assertThat(set.producerAttempt(i))
                        .as("partition %s", i)
                        .isEqualTo(oracle.producerAttempt(i));
            }
            assertThat(set.numAttemptExceptions()).isEqualTo(exceptions);
            int[] decoded = new int[set.numWorkers()];
            for (int k = 0; k < decoded.length; k++) {
                decoded[k] = set.worker(k);
                assertThat(set.connectionIndex(k)).isZero();
            }
            assertThat(decoded)
                    .containsExactly(expected.stream().mapToInt(Integer::intValue).toArray());
            assertEachPartitionServedOnce(topology, shuffle, set, workers);
        }
    }

    /** Every worker indexes all its partitions (of every dataset); their shares tile the range. */
    private static void assertEachPartitionServedOnce(
            ExecutionTopology topology,
            StaticShuffleDescriptors shuffle,
            WorkerSetGroup set,
            int workers) {
        JobGraph graph = topology.jobGraph();
        BitSet served = new BitSet(set.size());
        for (int w = 0; w < workers; w++) {
            int[] held = new int[graph.numPartitions()];
            int[] attempts = new int[graph.numPartitions()];
            int n = 0;
            for (int q = graph.numPartitions() - 1; q >= 0; q--) { // unsorted on purpose
                if (shuffle.worker(q) == w) {
                    held[n] = q;
                    attempts[n++] = shuffle.producerAttempt(q);
                }
            }
            LocalPartitionIndex index =
                    LocalPartitionIndex.of(Arrays.copyOf(held, n), Arrays.copyOf(attempts, n));
            long share = index.share(set);
            boolean inSet = Arrays.binarySearch(workerArray(set), w) >= 0;
            assertThat(PackedRange.size(share) > 0).as("worker %s", w).isEqualTo(inSet);
            assertThat(index.firstStale(set, share)).isEqualTo(-1);
            for (int i = PackedRange.start(share); i < PackedRange.end(share); i++) {
                int offset = index.partition(i) - set.firstPartition();
                assertThat(served.get(offset)).as("partition offset %s twice", offset).isFalse();
                served.set(offset);
                assertThat(shuffle.worker(index.partition(i))).isEqualTo(w);
            }
        }
        assertThat(served.cardinality()).isEqualTo(set.size());
    }

    private static int[] workerArray(WorkerSetGroup set) {
        int[] workers = new int[set.numWorkers()];
        for (int k = 0; k < workers.length; k++) {
            workers[k] = set.worker(k);
        }
        return workers;
    }

    @Test
    void atTenThousandOverAThousandWorkers_theGroupIsBytes_notKilobytes() {
        ExecutionTopology topology = allToAll(10_000);
        StaticShuffleDescriptors shuffle =
                StaticShuffleDescriptors.randomPlacement(topology.jobGraph(), 1_000, 9L);

        int perPartition = GroupDescriptors.encode(topology, 0, shuffle, true).bytes().length;
        int workerSet = WorkerSetGroup.encode(topology, 0, shuffle, true).bytes().length;

        assertThat(perPartition).isGreaterThan(10_000);
        assertThat(workerSet).isLessThan(32); // every worker produces: kind ALL
    }

    @Test
    void aProducerRestartedAfterTheDescriptor_isStaleOnItsWorker() {
        ExecutionTopology topology = allToAll(50);
        StaticShuffleDescriptors shuffle = new StaticShuffleDescriptors(topology.jobGraph(), 4);
        WorkerSetGroup set =
                WorkerSetGroup.decode(WorkerSetGroup.encode(topology, 0, shuffle, false).bytes());
        // worker 1 (round-robin) holds sources 1, 5, 9, ...; source 9 now runs attempt 1
        int[] held = {1, 5, 9, 13};
        LocalPartitionIndex index = LocalPartitionIndex.of(held, new int[] {0, 0, 1, 0});

        assertThat(index.firstStale(set, index.share(set))).isEqualTo(9);
    }

    @Test
    void twoConnectionIndicesOnOneWorker_areRejected_namingThem() {
        ExecutionTopology topology = allToAll(4);
        StaticShuffleDescriptors fixed = new StaticShuffleDescriptors(topology.jobGraph(), 2);
        ShuffleDescriptorSource split =
                new ShuffleDescriptorSource() {
                    @Override
                    public WorkerTable workers() {
                        return fixed.workers();
                    }

                    @Override
                    public int worker(int partition) {
                        return fixed.worker(partition);
                    }

                    @Override
                    public int connectionIndex(int partition) {
                        return partition;
                    }

                    @Override
                    public int producerAttempt(int partition) {
                        return 0;
                    }
                };
        assertThatThrownBy(() -> WorkerSetGroup.encode(topology, 0, split, true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(
                        "worker 0 serves partition 2 at connection index 2 and an earlier partition"
                                + " of group 0 at 0; the worker-set shape needs one connection"
                                + " index per worker");
    }

    @Test
    void corruptOrForeignBytes_failAsCorruptDescriptors() {
        ExecutionTopology topology = allToAll(30);
        StaticShuffleDescriptors shuffle =
                StaticShuffleDescriptors.randomPlacement(topology.jobGraph(), 1_000, 1L);
        byte[] bytes = WorkerSetGroup.encode(topology, 0, shuffle, false).bytes();
        byte[] flipped = bytes.clone();
        flipped[6] ^= 1;

        assertThatThrownBy(() -> WorkerSetGroup.decode(Arrays.copyOf(bytes, bytes.length - 1)))
                .isInstanceOf(CorruptDescriptorException.class);
        assertThatThrownBy(() -> WorkerSetGroup.decode(flipped))
                .isInstanceOf(CorruptDescriptorException.class)
                .hasMessageContaining("checksum");
        byte[] perPartition = GroupDescriptors.encode(topology, 0, shuffle, false).bytes();
        assertThatThrownBy(() -> WorkerSetGroup.decode(perPartition))
                .isInstanceOf(CorruptDescriptorException.class)
                .hasMessageContaining("not a worker-set group");
    }

    @Test
    void localPartitionIndex_rejectsBadInput_namingIt() {
        assertThatThrownBy(() -> LocalPartitionIndex.of(new int[] {1, 2}, new int[] {0}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("partitions (2) and attempts (1) must be as many");
        assertThatThrownBy(() -> LocalPartitionIndex.of(new int[] {4, -1}, new int[] {0, 0}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("partition -1 at index 1 has attempt 0; both must be >= 0");
        assertThatThrownBy(() -> LocalPartitionIndex.of(new int[] {4, 4}, new int[] {0, 1}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("partition 4 is held twice (attempts 0 and 1)");
    }
}
