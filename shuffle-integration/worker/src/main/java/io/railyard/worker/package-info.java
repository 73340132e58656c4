/**
 * The worker side of the JobManager seam: {@link io.railyard.worker.Worker} (one worker of a job:
 * deploy, cancel, release), {@link io.railyard.worker.ShuffleEnvironment} (a task's descriptor in,
 * its writers and gates out, as a {@link io.railyard.worker.TaskShuffle}), the worker's {@link
 * io.railyard.worker.PartitionRegistry}, the {@link io.railyard.worker.PartitionLocator} through
 * which it reaches other workers' partitions in-process, the {@link
 * io.railyard.worker.ShuffleNetwork} through which it serves its partitions and reads others' over
 * a network (its own too, or with its own read directly behind one composite gate), and the task
 * API ({@link io.railyard.worker.TaskCode}, {@link io.railyard.worker.TaskContext}, {@link
 * io.railyard.worker.Tally}).
 *
 * <p>Threading: a worker, its environment and its registry are thread-safe (the JobManager's thread
 * deploys, cancels and releases while task threads run); a task attempt and its {@code TaskShuffle}
 * belong to the attempt's thread.
 */
@NullMarked
package io.railyard.worker;

import org.jspecify.annotations.NullMarked;
