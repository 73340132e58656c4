package io.railyard.jobmaster;

import io.railyard.topology.PartitionId;
import java.io.IOException;

/**
 * How the {@link JobMaster} reaches workers: deploy a task, cancel one, release a partition. Called
 * on the JobManager's main thread; an implementation only hands the request over (a local engine
 * queues it, a remote one sends it) and must not call back into the {@link JobMaster} from within.
 */
public interface WorkerGateway {
    /**
     * Runs the task the encoded {@code descriptor} describes on worker {@code worker} (the bytes a
     * worker decodes with {@code TaskDeploymentDescriptor.decode}).
     *
     * @throws IOException if the request cannot be handed over (the worker is gone, its connection
     *     broke): the JobMaster fails that attempt and tells its {@link DeployFailureListener}
     */
    void deploy(int worker, byte[] descriptor) throws IOException;

    /**
     * Cancels attempt {@code attempt} of task {@code task} on worker {@code worker}, if running.
     */
    void cancel(int worker, int task, int attempt);

    /** Releases {@code partition} on worker {@code worker}: its memory and files go. Idempotent. */
    void releasePartition(int worker, PartitionId partition);
}
