package io.railyard.benchmarks.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.benchmarks.procedures.MemoryTable;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The memory table's Flink column: Flink's initialised graph is larger than Railyard's state. */
class MemoryTableFlinkTest {

    @Test
    void memoryTable_withFlink_showsFlinkLargerThanRailyard() {
        List<MemoryTable.Row> rows =
                MemoryTable.measure(List.of(50), FlinkColumnMeasurer::retainedGraphBytes);

        assertThat(rows).allMatch(row -> row.flinkBytes() > row.railyardBytes());
    }
}
