/**
 * The comparison with Apache Flink 2.x: the only package of Railyard that may import {@code
 * org.apache.flink} (an ArchUnit test enforces it).
 *
 * <p>Map: {@code FlinkJobs} translates a Railyard job graph into Flink's; {@code FlinkProcedures}
 * and {@code FlinkDeployment} run Flink's side of each procedure; the {@code *SideBySideBenchmark}
 * classes (on {@link io.railyard.benchmarks.flink.SideBySideBenchmark}) time both sides in one JMH
 * run; {@code FlinkColumnMeasurer} gives the report its live column. Threading: Flink's components
 * run on one main-thread executor per trial, as in Flink.
 */
@NullMarked
package io.railyard.benchmarks.flink;

import org.jspecify.annotations.NullMarked;
