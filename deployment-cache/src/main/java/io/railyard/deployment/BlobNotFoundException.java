package io.railyard.deployment;

import java.io.IOException;

/** A blob that should exist does not (deleted, never written, or a wrong key). */
public final class BlobNotFoundException extends IOException {
    private static final long serialVersionUID = 1L;

    private final String keyHex; // a String, not a BlobKey: exceptions are Serializable

    /** An exception naming the missing key and where it was looked for. */
    public BlobNotFoundException(BlobKey key, String where) {
        super("blob " + key + " not found in " + where);
        this.keyHex = key.hex();
    }

    /** The key of the missing blob, i.e. the content to put again. Allocates a key, O(64). */
    public BlobKey key() {
        return new BlobKey(keyHex);
    }
}
