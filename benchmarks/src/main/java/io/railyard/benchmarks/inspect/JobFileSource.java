package io.railyard.benchmarks.inspect;

import java.math.BigDecimal;
import java.math.RoundingMode;
import org.jspecify.annotations.Nullable;

/**
 * What a job file says about the records of one source vertex (a vertex without input edges), for
 * {@code run}: {@code records_per_subtask} and {@code skew}, as {@link JobFile} validated them.
 * {@code inspect} validates them too and ignores them.
 *
 * @param vertex the vertex's id in the job graph
 * @param name the vertex's name
 * @param recordsPerSubtask records each subtask generates, in {@code [0, }{@link
 *     JobFile#MAX_RECORDS_PER_SUBTASK}{@code ]}; null where the file leaves it to the command
 *     ({@code run --records})
 * @param skew its hot subtasks, or null if none
 */
public record JobFileSource(
        int vertex, String name, @Nullable Long recordsPerSubtask, @Nullable Skew skew) {
    /**
     * Subtasks {@code 0 .. hotSubtasks - 1} generate {@code factor} times the records of the
     * others, rounded to the nearest integer (halves up).
     *
     * @param hotSubtasks in {@code [1, parallelism]}
     * @param factor in {@code [1, }{@link JobFile#MAX_SKEW_FACTOR}{@code ]}, exact as written
     */
    public record Skew(int hotSubtasks, BigDecimal factor) {
        /**
         * The records of each hot subtask when the others generate {@code perSubtask}: {@code
         * perSubtask × factor}, rounded half up, exactly (no floating point). At most {@code
         * MAX_RECORDS_PER_SUBTASK × MAX_SKEW_FACTOR} (10^12) for a valid file.
         *
         * @throws ArithmeticException if it does not fit in a long (not for a valid file and {@code
         *     perSubtask <= MAX_RECORDS_PER_SUBTASK})
         */
        public long hotRecords(long perSubtask) {
            return BigDecimal.valueOf(perSubtask)
                    .multiply(factor)
                    .setScale(0, RoundingMode.HALF_UP)
                    .longValueExact();
        }
    }

    /**
     * The records each subtask that is not hot generates: the file's {@code records_per_subtask},
     * or {@code defaultRecords} where the file has none.
     */
    public long perSubtask(long defaultRecords) {
        return recordsPerSubtask == null ? defaultRecords : recordsPerSubtask;
    }
}
