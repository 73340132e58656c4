/**
 * Railyard's JMH benchmarks, one class per procedure on {@link
 * io.railyard.benchmarks.jmh.ScaleBenchmark} (parallelisms and defaults), plus the shuffle; each
 * has a CI twin that starts it for 100 ms.
 *
 * <p>Map: a benchmark prepares its state in {@code @Setup} from {@code .procedures} and times one
 * procedure call; the logic lives in the procedure classes so that the scale report and the tests
 * run exactly what JMH measures. Threading: JMH's benchmark thread, one state per trial.
 */
@NullMarked
package io.railyard.benchmarks.jmh;

import org.jspecify.annotations.NullMarked;
