/**
 * Failover: {@code RegionFailover} computes the tasks to restart by the region rules, {@code
 * PartitionRelease} when partitions can go, a {@code RestartBackoffPolicy} whether and when to
 * restart; {@code FailoverHandler} ties them to the scheduling strategy with attempt numbers.
 *
 * <p>Threading: single-threaded, the JobManager's main thread; the stateful back-off policies
 * assert (with {@code -ea}) that they stay on the thread of their first call.
 */
@NullMarked
package io.railyard.failover;

import org.jspecify.annotations.NullMarked;
