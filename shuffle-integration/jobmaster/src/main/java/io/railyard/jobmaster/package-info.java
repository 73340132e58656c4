/**
 * The JobManager core: {@link io.railyard.jobmaster.JobScheduler}, the one scheduler core of a job
 * (topology, regions, strategy, failover, pending restarts; decisions out through its actions), and
 * {@link io.railyard.jobmaster.JobMaster}, which wraps it with the descriptor cache, the master
 * side of the shuffle seam ({@link io.railyard.jobmaster.ShuffleMaster}) and the {@link
 * io.railyard.jobmaster.WorkerGateway} through which workers are reached.
 *
 * <p>Threading: one main thread per job, the thread that builds its scheduler; every entry point
 * checks it and refuses calls from inside the core's own callbacks. Deployment slices run as steps
 * the embedder hands back to that thread ({@link io.railyard.jobmaster.MainThreadExecutor}).
 */
@NullMarked
package io.railyard.jobmaster;

import org.jspecify.annotations.NullMarked;
