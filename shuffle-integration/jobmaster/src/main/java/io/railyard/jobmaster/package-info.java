/**
 * Where scheduling meets the shuffle: the JobManager core ({@link
 * io.railyard.jobmaster.JobMaster}), which owns the topology, regions, scheduling strategy,
 * failover, partition release and descriptor cache of one job, and the master side of the shuffle
 * seam ({@link io.railyard.jobmaster.ShuffleMaster}), which places partitions and feeds the shuffle
 * descriptors of deployment descriptors. Workers are reached through {@link
 * io.railyard.jobmaster.WorkerGateway}.
 */
@NullMarked
package io.railyard.jobmaster;

import org.jspecify.annotations.NullMarked;
