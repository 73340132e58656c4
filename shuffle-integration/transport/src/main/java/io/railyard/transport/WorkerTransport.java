package io.railyard.transport;

import io.railyard.deployment.JobId;
import io.railyard.deployment.JobSecret;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.topology.PartitionId;
import io.railyard.worker.PartitionRegistry;
import io.railyard.worker.ShuffleNetwork;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * One worker's transport: its {@link DataServer}, serving the partitions the worker holds, and its
 * {@link TransportClient}, reading other workers' partitions into the worker's pool. What a worker
 * process (or the local engine's worker, with {@code --transport tcp}) starts next to its shuffle
 * layer.
 *
 * <p>Thread-safe. Closing it closes its server and its connections: readers of its partitions fail
 * as on a lost worker, and its own gates' streams fail likewise.
 */
public final class WorkerTransport implements AutoCloseable {
    private final ShuffleWorker shuffle;
    private final DataServer server;
    private final TransportClient client;

    private WorkerTransport(ShuffleWorker shuffle, DataServer server, TransportClient client) {
        this.shuffle = shuffle;
        this.server = server;
        this.client = client;
    }

    /**
     * Starts the transport of the worker whose shuffle layer is {@code shuffle}.
     *
     * @throws IOException if the data server cannot listen where {@code options} say (the message
     *     names the address and port)
     */
    public static WorkerTransport start(TransportOptions options, ShuffleWorker shuffle)
            throws IOException {
        DataServer server = DataServer.start(options, shuffle.options().pageSizeBytes());
        try {
            return new WorkerTransport(
                    shuffle,
                    server,
                    new TransportClient(options, shuffle.bufferPool(), shuffle.options()));
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** Where its data server listens. */
    public InetSocketAddress address() {
        return server.address();
    }

    /** Its data server. */
    public DataServer server() {
        return server;
    }

    /** Its client. */
    public TransportClient client() {
        return client;
    }

    /**
     * Serves job {@code job}'s partitions in {@code partitions} to readers proving {@code secret}.
     */
    public void serve(JobId job, JobSecret secret, PartitionRegistry partitions) {
        server.serve(job, secret, partitions, shuffle);
    }

    /**
     * This worker's network: its data server serves what its deployments name, its gates read
     * through its client from the data server of worker w at {@code addresses.apply(w)} (read when
     * each gate opens, so a worker that restarted on a new port is found there).
     */
    public ShuffleNetwork network(IntFunction<InetSocketAddress> addresses) {
        return new ShuffleNetwork() {
            @Override
            public void serve(JobId job, JobSecret secret, PartitionRegistry partitions) {
                WorkerTransport.this.serve(job, secret, partitions);
            }

            @Override
            public InputGate openGate(
                    String name,
                    JobId job,
                    JobSecret secret,
                    int[] holders,
                    List<PartitionId> partitions,
                    int subpartition) {
                List<InetSocketAddress> servers = new ArrayList<>(holders.length);
                for (int holder : holders) {
                    servers.add(addresses.apply(holder));
                }
                return client.openGate(name, servers, partitions, subpartition, job, secret);
            }
        };
    }

    /** Closes the client's connections and the server; idempotent. */
    @Override
    public void close() {
        try {
            client.close();
        } finally {
            server.close();
        }
    }
}
