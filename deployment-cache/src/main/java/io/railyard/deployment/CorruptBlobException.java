package io.railyard.deployment;

import java.io.IOException;

/**
 * A stored blob whose content does not match its key: a bit flip, a truncated or grown file, a file
 * changed behind the store's back. It is never served; the message says what the store did with it
 * (normally: deleted it, so that putting the content again, re-encoded or refetched, repairs it).
 */
public final class CorruptBlobException extends IOException {
    private static final long serialVersionUID = 1L;

    private final String keyHex; // a String, not a BlobKey: exceptions are Serializable

    /**
     * An exception naming the corrupt blob, where it was stored and what is wrong with it.
     *
     * @param key the key the blob was stored under
     * @param where the file (or other location) that held it
     * @param problem what does not match, and what was done about it
     */
    public CorruptBlobException(BlobKey key, String where, String problem) {
        super("blob " + key + " in " + where + " is corrupt: " + problem);
        this.keyHex = key.hex();
    }

    /** The key of the corrupt blob, i.e. the content to put again. Allocates a key, O(64). */
    public BlobKey key() {
        return new BlobKey(keyHex);
    }
}
