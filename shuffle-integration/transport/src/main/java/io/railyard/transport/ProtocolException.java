package io.railyard.transport;

/**
 * A peer sent bytes that are not this protocol (a wrong magic, an unknown type, a length beyond
 * what its type allows, a stream it never opened, data beyond its credit): the connection it came
 * on is closed, and the message is the logged reason.
 */
public final class ProtocolException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** A violation described by {@code message}. */
    public ProtocolException(String message) {
        super(message);
    }
}
