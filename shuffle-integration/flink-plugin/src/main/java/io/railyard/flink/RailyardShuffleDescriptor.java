package io.railyard.flink;

import io.railyard.deployment.JobId;
import io.railyard.deployment.JobSecret;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.topology.PartitionId;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Optional;
import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.clusterframework.types.ResourceID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.shuffle.ShuffleDescriptor;

/**
 * How a Flink partition written by Railyard is found: the TaskManager that holds it (its resource
 * id, and the address and port of its Railyard data server), the partition's Railyard id and kind,
 * and the job's secret, which proves a reader's right to it to that data server. Made by {@link
 * RailyardShuffleMaster}, shipped to the producer (which writes the partition under the Railyard
 * id) and to every consumer (which reads it over Railyard's transport).
 *
 * <p>Immutable and serializable (Flink ships descriptors in deployment descriptors, possibly
 * offloaded to its blob server).
 */
public final class RailyardShuffleDescriptor implements ShuffleDescriptor {
    private static final long serialVersionUID = 1L;

    private final ResultPartitionID resultPartitionId;
    private final ResourceID producerLocation;
    private final InetAddress address;
    private final int dataPort;
    private final int partition;
    private final int attempt;
    private final PartitionKind kind;
    private final long jobHigh;
    private final long jobLow;
    private final byte[] secret;

    RailyardShuffleDescriptor(
            ResultPartitionID resultPartitionId,
            ResourceID producerLocation,
            InetAddress address,
            int dataPort,
            PartitionId railyardId,
            PartitionKind kind,
            JobID job,
            JobSecret secret) {
        this.resultPartitionId = resultPartitionId;
        this.producerLocation = producerLocation;
        this.address = address;
        this.dataPort = dataPort;
        this.partition = railyardId.partition();
        this.attempt = railyardId.attempt();
        this.kind = kind;
        this.jobHigh = job.getUpperPart();
        this.jobLow = job.getLowerPart();
        this.secret = secret.bytes();
    }

    @Override
    public ResultPartitionID getResultPartitionID() {
        return resultPartitionId;
    }

    /**
     * The producer's TaskManager: it holds the partition's files until Flink releases it there, as
     * for Flink's own partitions.
     */
    @Override
    public Optional<ResourceID> storesLocalResourcesOn() {
        return Optional.of(producerLocation);
    }

    /** The producer's TaskManager. */
    public ResourceID producerLocation() {
        return producerLocation;
    }

    /** Where the producer's Railyard data server listens. */
    public InetSocketAddress dataAddress() {
        return new InetSocketAddress(address, dataPort);
    }

    /** The partition's Railyard id: the name of its files and of its streams on the wire. */
    public PartitionId railyardId() {
        return new PartitionId(partition, attempt);
    }

    /** How Railyard writes it. */
    public PartitionKind kind() {
        return kind;
    }

    /** The Flink job, as Railyard's transport names it. */
    public JobId job() {
        return new JobId(jobHigh, jobLow);
    }

    /** The job's secret. */
    public JobSecret secret() {
        return JobSecret.of(secret);
    }

    @Override
    public String toString() {
        return "RailyardShuffleDescriptor{"
                + resultPartitionId
                + " as "
                + railyardId()
                + " ("
                + kind
                + ") on "
                + producerLocation
                + " at "
                + address.getHostAddress()
                + ":"
                + dataPort
                + "}";
    }
}
