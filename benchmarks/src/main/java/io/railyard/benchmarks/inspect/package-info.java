/**
 * The job-file reader: strict JSON job graphs with bounded memory, every mistake a {@link
 * io.railyard.benchmarks.inspect.JobFileException} naming the JSON path or option.
 *
 * <p>Map: {@code JobFile} reads and validates, {@code JobFileSchema} is the bound form, {@code
 * JobFileJsonErrors} turns Jackson's errors into paths. Used by {@code inspect} (and by the
 * commands that run or simulate a job file). Threading: stateless and thread-safe.
 */
@NullMarked
package io.railyard.benchmarks.inspect;

import org.jspecify.annotations.NullMarked;
