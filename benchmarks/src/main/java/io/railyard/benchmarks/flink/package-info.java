/**
 * The comparison with Apache Flink 2.x: the only package of Railyard that may import {@code
 * org.apache.flink} (an ArchUnit test enforces it).
 *
 * <p>Map: {@code FlinkJobs} translates a Railyard job graph into Flink's; {@code FlinkProcedures}
 * and {@code FlinkDeployment} run Flink's side of each procedure; the {@code *SideBySideBenchmark}
 * classes (on {@link io.railyard.benchmarks.flink.SideBySideBenchmark}) time both sides in one JMH
 * run; {@code FlinkColumnMeasurer} gives the report its live column. {@code FlinkSortShuffle}
 * drives Flink's sort-merge blocking partition as the shuffle measurement drives Railyard's sort
 * partitions ({@code shuffle --with-flink}; consumers {@code FlinkSortConsumer}, records parsed by
 * {@code SpanningRecordDeserializer}), and {@code ShuffleSideBySideBenchmark} times both under JMH.
 * {@code MiniClusterSideBySideBenchmark} times whole batch jobs: Flink 2.3's MiniCluster running
 * them ({@code FlinkBatchJobs}) against Railyard's local engine. Threading: Flink's scheduler
 * components run on one main-thread executor per trial, as in Flink; the shuffle runs its producers
 * and consumers on slot threads and Flink's reads on Flink's IO threads, each class saying which.
 */
@NullMarked
package io.railyard.benchmarks.flink;

import org.jspecify.annotations.NullMarked;
