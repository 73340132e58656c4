/**
 * The measured procedures as plain classes: the reference jobs, each scheduler procedure (topology,
 * regions, scheduling, deployment, failover, release), the initialised state, the scale report, the
 * JOL memory table, the shuffle throughput measurement (sort, hash and hybrid partitions) and the
 * small batch jobs the local engine runs against Flink's MiniCluster ({@code LongJobs}, {@code
 * RailyardBatchJobs}).
 *
 * <p>Map: JMH benchmarks, the report and the tests all call these, so that what CI checks at a tiny
 * scale is exactly what is measured at full scale. No JMH, command-line or Flink types here.
 * Threading: single-threaded unless a class says otherwise (the shuffle measurement runs its tasks
 * on its own pools: producers on the slots' threads, hybrid consumers on consumer threads).
 */
@NullMarked
package io.railyard.benchmarks.procedures;

import org.jspecify.annotations.NullMarked;
