package io.railyard.transport;

/**
 * What the transport holds open in this process, for leak checks: a test that closed every server
 * and client it made leaves both counts at zero. Thread-safe; O(1).
 */
public final class OpenResources {
    private OpenResources() {}

    /** TCP connections of this process's data servers and clients open now (each end counts). */
    public static int connections() {
        return NettyIo.OPEN_CONNECTIONS.get();
    }

    /** Event-loop groups (data servers and clients) not shut down. */
    public static int eventLoopGroups() {
        return NettyIo.OPEN_GROUPS.get();
    }
}
