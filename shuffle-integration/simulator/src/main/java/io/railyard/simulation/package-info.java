/**
 * A discrete-event simulator of a batch job on the real scheduler core ({@link
 * io.railyard.jobmaster.JobScheduler}: what runs when, what restarts, which partitions are
 * released), while a simulated clock, a slot pool and a fluid model of each task's work stand in
 * for workers ({@link io.railyard.simulation.JobSimulator}). Used to compare blocking and hybrid
 * shuffle on a job before running it.
 *
 * <p>Threading: single-threaded; each simulation builds and owns its own state and runs on the
 * thread that built it (the scheduler core checks it).
 */
@NullMarked
package io.railyard.simulation;

import org.jspecify.annotations.NullMarked;
