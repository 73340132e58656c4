package io.railyard.shuffle.buffer;

/**
 * The network budget cannot hold an owner's guarantee. Thrown at once (nothing waits for memory
 * that can never come); the message names the owner, required and available pages, and the settings
 * to change.
 */
public final class InsufficientNetworkMemoryException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** An exception with its full message. */
    public InsufficientNetworkMemoryException(String message) {
        super(message);
    }
}
