package io.railyard.benchmarks.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The arithmetic and message helpers of {@link JobFile}. */
class JobFileTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 9, 10, 11, 12, 99, 100, 101, 999, 1000, 12_345, 1_000_000})
    void taskNameChars_anyParallelism_equalsTheNaiveSum(int parallelism) {
        long naive = 0;
        for (int subtask = 0; subtask < parallelism; subtask++) {
            naive += ("vertex#" + subtask).length();
        }

        assertThat(JobFile.taskNameChars("vertex", parallelism)).isEqualTo(naive);
    }

    @Test
    void taskNameChars_maxParallelismAndLongName_doesNotOverflow() {
        assertThat(JobFile.taskNameChars("n".repeat(1 << 20), 1 << 24))
                .isEqualTo(
                        (1L << 24) * ((1 << 20) + 1)
                                + 10L
                                + 90 * 2
                                + 900 * 3
                                + 9_000 * 4
                                + 90_000 * 5
                                + 900_000 * 6
                                + 9_000_000 * 7
                                + ((1 << 24) - 10_000_000L) * 8);
    }

    @Test
    void sample_manyNames_showsTenAndTheCount() {
        assertThat(JobFile.sample(List.of("a", "b"))).isEqualTo("['a', 'b']");
        assertThat(JobFile.sample(List.of())).isEqualTo("[]");
        List<String> twelve = List.of("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11");
        assertThat(JobFile.sample(twelve))
                .isEqualTo("['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', ... (12 in all)]");
    }
}
