package io.railyard.topology;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VertexRunsTest {
    @Test
    void vertexOf_agreesWithTheGraph_inRunsAndOutOfOrder() {
        JobGraph graph =
                JobGraph.builder()
                        .addVertex("a", 3)
                        .addVertex("b", 1)
                        .addVertex("c", 4)
                        .connect(
                                "a",
                                "b",
                                DistributionPattern.ALL_TO_ALL,
                                ResultPartitionType.BLOCKING)
                        .connect(
                                "b",
                                "c",
                                DistributionPattern.ALL_TO_ALL,
                                ResultPartitionType.BLOCKING)
                        .build();
        VertexRuns runs = new VertexRuns(graph);
        int[] order = {0, 1, 2, 3, 4, 5, 6, 7, 7, 0, 4, 3, 2, 6};
        for (int task : order) {
            assertThat(runs.vertexOf(task)).as("task %s", task).isEqualTo(graph.vertexOfTask(task));
            assertThat(runs.firstTask()).isEqualTo(graph.firstTask(graph.vertexOfTask(task)));
        }
    }
}
