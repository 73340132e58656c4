package io.railyard.transport;

import static com.google.common.base.Preconditions.checkArgument;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Settings of a worker's transport: where its data server listens and how long its connections
 * wait.
 *
 * @param bindAddress the data server's address ({@code 127.0.0.1} by default: loopback)
 * @param port the data server's port; 0 picks a free one
 * @param connectTimeout how long one connection attempt may take
 * @param connectAttempts attempts to reach a worker before it counts as lost, in [1, 20]
 * @param retryBackoff the wait after the first failed attempt; it doubles after each
 * @param heartbeatInterval a connection with nothing else to send for this long sends a heartbeat
 * @param peerTimeout a connection that received nothing (not even a heartbeat) for this long is
 *     closed: its peer is silent; more than {@code heartbeatInterval}
 * @param idleTimeout a client connection with no stream open for this long is closed
 * @param servePages the pages the data server's reader of one stream is guaranteed in its worker's
 *     pool, in [1, 64]
 * @param tls TLS for every connection ({@link TransportTls}: mutual, from one key store), or null
 *     for plain TCP (the default)
 * @param fileRegions whether finished blocking partitions go out as file regions, from the page
 *     cache to the socket without a copy (the default); TLS, which encrypts in the process, and
 *     {@code false} send them through a reading gate's pages instead
 */
public record TransportOptions(
        String bindAddress,
        int port,
        Duration connectTimeout,
        int connectAttempts,
        Duration retryBackoff,
        Duration heartbeatInterval,
        Duration peerTimeout,
        Duration idleTimeout,
        int servePages,
        @Nullable TransportTls tls,
        boolean fileRegions) {

    /**
     * Loopback, a free port, 5 s connects, 4 attempts from 100 ms, 2 s heartbeats, 15 s peer
     * timeout, 30 s idle, 4 pages per served stream, plain TCP, file regions.
     */
    public static final TransportOptions DEFAULT =
            new TransportOptions(
                    "127.0.0.1",
                    0,
                    Duration.ofSeconds(5),
                    4,
                    Duration.ofMillis(100),
                    Duration.ofSeconds(2),
                    Duration.ofSeconds(15),
                    Duration.ofSeconds(30),
                    4,
                    null,
                    true);

    /**
     * Checks every setting.
     *
     * @throws IllegalArgumentException naming the setting, its value and what is allowed
     */
    public TransportOptions {
        checkArgument(!bindAddress.isBlank(), "transport bind address must not be blank");
        checkArgument(
                port >= 0 && port <= 65_535, "transport port must be in [0, 65535], was %s", port);
        checkArgument(
                connectAttempts >= 1 && connectAttempts <= 20,
                "transport connect attempts must be in [1, 20], was %s",
                connectAttempts);
        checkPositive("connect timeout", connectTimeout);
        checkPositive("retry back-off", retryBackoff);
        checkPositive("heartbeat interval", heartbeatInterval);
        checkPositive("idle timeout", idleTimeout);
        checkArgument(
                peerTimeout.compareTo(heartbeatInterval) > 0,
                "transport peer timeout must be longer than the heartbeat interval %s, was %s",
                heartbeatInterval,
                peerTimeout);
        checkArgument(
                servePages >= 1 && servePages <= 64,
                "transport serve pages must be in [1, 64], was %s",
                servePages);
    }

    /** These options with the data server on {@code address} and {@code port}. */
    public TransportOptions withAddress(String address, int port) {
        return new TransportOptions(
                address,
                port,
                connectTimeout,
                connectAttempts,
                retryBackoff,
                heartbeatInterval,
                peerTimeout,
                idleTimeout,
                servePages,
                tls,
                fileRegions);
    }

    /** These options with {@code heartbeatInterval} and {@code peerTimeout}. */
    public TransportOptions withHeartbeats(Duration heartbeatInterval, Duration peerTimeout) {
        return new TransportOptions(
                bindAddress,
                port,
                connectTimeout,
                connectAttempts,
                retryBackoff,
                heartbeatInterval,
                peerTimeout,
                idleTimeout,
                servePages,
                tls,
                fileRegions);
    }

    /**
     * These options with {@code connectAttempts} attempts, the first retry after {@code backoff}.
     */
    public TransportOptions withRetries(int connectAttempts, Duration backoff) {
        return new TransportOptions(
                bindAddress,
                port,
                connectTimeout,
                connectAttempts,
                backoff,
                heartbeatInterval,
                peerTimeout,
                idleTimeout,
                servePages,
                tls,
                fileRegions);
    }

    /** These options with every connection over {@code tls} (null: plain TCP). */
    public TransportOptions withTls(@Nullable TransportTls tls) {
        return new TransportOptions(
                bindAddress,
                port,
                connectTimeout,
                connectAttempts,
                retryBackoff,
                heartbeatInterval,
                peerTimeout,
                idleTimeout,
                servePages,
                tls,
                fileRegions);
    }

    /** These options with file regions on or off ({@link #fileRegions()}). */
    public TransportOptions withFileRegions(boolean fileRegions) {
        return new TransportOptions(
                bindAddress,
                port,
                connectTimeout,
                connectAttempts,
                retryBackoff,
                heartbeatInterval,
                peerTimeout,
                idleTimeout,
                servePages,
                tls,
                fileRegions);
    }

    /** Whether a data server sends finished blocking partitions as file regions: on, and no TLS. */
    boolean sendsFileRegions() {
        return fileRegions && tls == null;
    }

    private static void checkPositive(String name, Duration value) {
        checkArgument(
                !value.isNegative() && !value.isZero(),
                "transport %s must be positive, was %s",
                name,
                value);
    }
}
