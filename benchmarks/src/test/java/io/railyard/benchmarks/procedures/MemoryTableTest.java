package io.railyard.benchmarks.procedures;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The memory table's Railyard side: every shape measured, bytes per task, Flink left blank. */
class MemoryTableTest {

    @Test
    void railyardOnly_measuresEveryShape_andLeavesFlinkBlank() {
        List<MemoryTable.Row> rows = MemoryTable.measure(List.of(100, 200), null);

        assertThat(rows).hasSize(2 * ReferenceJobs.Shape.values().length);
        assertThat(rows).allMatch(row -> row.railyardBytes() > 0 && row.flinkBytes() == -1);
        // the blocking job's state grows with P (per-task counters), but by far less than P^2
        MemoryTable.Row small = rows.get(0);
        MemoryTable.Row large = rows.get(1);
        assertThat(large.railyardBytes()).isGreaterThan(small.railyardBytes());
        assertThat(large.railyardBytes()).isLessThan(4 * small.railyardBytes());
    }
}
