package io.railyard.local;

import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.transport.TransportOptions;
import io.railyard.transport.WorkerTransport;
import java.io.IOException;

/**
 * A local worker's network transport, with {@code --transport tcp}: its data server and client on
 * loopback (or the configured address), each worker on a port of its own, and a fresh transport on
 * a fresh port when the worker is lost ({@link #restart}), as a restarted worker process would
 * have. Thread-safe.
 */
final class HostTransport implements AutoCloseable {
    private final TransportOptions options;
    private final ShuffleWorker shuffle;
    private volatile WorkerTransport current;

    /**
     * Starts the transport of the worker of {@code shuffle} on {@code options}' address, on a port
     * of its own.
     *
     * @throws IOException if it cannot listen there
     */
    HostTransport(TransportOptions options, ShuffleWorker shuffle) throws IOException {
        this.options = options.withAddress(options.bindAddress(), 0);
        this.shuffle = shuffle;
        this.current = WorkerTransport.start(this.options, shuffle);
    }

    /** The transport of the worker now. */
    WorkerTransport current() {
        return current;
    }

    /**
     * The worker is lost: its server and every connection close for real (readers of its partitions
     * and its own gates' streams fail), and a fresh transport starts on a new port.
     *
     * @throws IOException if the fresh one cannot listen
     */
    synchronized void restart() throws IOException {
        int lostPort = current.address().getPort();
        current.close();
        WorkerTransport fresh = WorkerTransport.start(options, shuffle);
        if (fresh.address().getPort() == lostPort) {
            // The OS handed the freed port out again (it may): take another while this one holds
            // it, so that the lost worker's address refuses connections as a dead process's does.
            WorkerTransport other;
            try {
                other = WorkerTransport.start(options, shuffle);
            } finally {
                fresh.close();
            }
            fresh = other;
        }
        current = fresh;
    }

    @Override
    public synchronized void close() {
        current.close();
    }
}
