/**
 * A discrete-event simulator of a batch job on the real scheduler: the {@link
 * io.railyard.regions.scheduling.RegionSchedulingStrategy} decides what runs when, the {@link
 * io.railyard.failover.FailoverHandler} what restarts and which partitions are released, while a
 * simulated clock, a slot pool and a fluid model of each task's work stand in for workers ({@link
 * io.railyard.simulation.JobSimulator}). Used to compare blocking and hybrid shuffle on a job
 * before running it.
 */
@NullMarked
package io.railyard.simulation;

import org.jspecify.annotations.NullMarked;
