/**
 * The local execution engine: N workers × S slots in one process ({@link
 * io.railyard.local.LocalEngine}), each job run by a {@link io.railyard.jobmaster.JobMaster} on a
 * main thread of its own and one {@link io.railyard.worker.Worker} per engine worker; {@link
 * io.railyard.local.ForwardingJob} is the built-in task code with its oracle.
 *
 * <p>Threading: {@code LocalEngine.run} is synchronized (one job at a time); a job's JobManager
 * state lives on its main thread, which every task report is posted to; {@code progress()} and
 * {@code loseWorker} may be called from any thread.
 */
@NullMarked
package io.railyard.local;

import org.jspecify.annotations.NullMarked;
