package io.railyard.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AttemptIdTest {

    @ParameterizedTest
    @CsvSource({"0, 0", "5, 1", "2147483647, 2147483647", "16777216, 3", "1, 2147483647"})
    void pack_thenUnpack_isTheSameAttempt(int task, int attempt) {
        AttemptId id = new AttemptId(task, attempt);

        assertThat(AttemptId.unpack(id.pack())).isEqualTo(id);
        assertThat(AttemptId.task(id.pack())).isEqualTo(task);
        assertThat(AttemptId.attempt(id.pack())).isEqualTo(attempt);
    }

    @ParameterizedTest
    @CsvSource({"-1, 0", "0, -1"})
    void negativeParts_areRejectedWithTheirNames(int task, int attempt) {
        assertThatThrownBy(() -> new AttemptId(task, attempt))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(task < 0 ? "task must be >= 0" : "attempt must be >= 0");
    }
}
