/**
 * The worker side of the JobManager seam: {@link io.railyard.worker.Worker} (one worker of a job:
 * deploy, cancel, release), {@link io.railyard.worker.ShuffleEnvironment} (a task's descriptor in,
 * its writers and gates out, as a {@link io.railyard.worker.TaskShuffle}), the worker's {@link
 * io.railyard.worker.PartitionRegistry}, the {@link io.railyard.worker.PartitionLocator} through
 * which it reaches other workers' partitions in-process, the {@link
 * io.railyard.worker.ShuffleNetwork} through which it serves its partitions and reads others' over
 * a network (its own too, or with its own read directly behind one composite gate), its {@link
 * io.railyard.worker.TaskSlots} (slots and the few threads every task runs on), and the cooperative
 * task API ({@link io.railyard.worker.TaskCode}, {@link io.railyard.worker.TaskContext}, {@link
 * io.railyard.worker.Tally}).
 *
 * <p>Threading: a worker, its environment, its registry and its slots are thread-safe (the
 * JobManager's thread deploys, cancels and releases while tasks run); a task attempt and its {@code
 * TaskShuffle} belong to the thread running its current step — one step at a time, on any of its
 * worker's task threads, never two at once. Task code must not wait for another task inside a step:
 * it yields instead.
 */
@NullMarked
package io.railyard.worker;

import org.jspecify.annotations.NullMarked;
