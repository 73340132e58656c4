/**
 * Railyard's data plane between workers, on Netty: a worker's {@link
 * io.railyard.transport.DataServer} serves its partitions; a {@link
 * io.railyard.transport.TransportClient} opens input gates over partitions of other workers, with
 * one TCP connection per pair of workers, streams multiplexed on it, credit-based flow control (one
 * credit per page of the reading gate, granted against the server's backlog), per-job
 * authentication (an HMAC of the job's {@link io.railyard.transport.JobSecret} over a server
 * nonce), heartbeats, idle closing and typed failures ({@link
 * io.railyard.shuffle.PartitionLostException} for a lost partition or worker). The wire format is
 * in {@code Wire}.
 *
 * <p>Threading: every connection's state is confined to its Netty event loop, which never blocks; a
 * data server waits for partitions to be registered on separate opener threads; a remote gate is
 * polled by its consumer, filled by event loops and guarded by its monitor (the lock order: a
 * gate's monitor, then the pool's lock; nobody holds a gate's monitor while it hands a frame to a
 * connection).
 */
@NullMarked
package io.railyard.transport;

import org.jspecify.annotations.NullMarked;
