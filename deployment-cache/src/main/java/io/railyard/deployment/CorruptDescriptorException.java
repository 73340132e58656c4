package io.railyard.deployment;

/**
 * Encoded descriptor bytes that cannot be decoded: truncated, corrupt (checksum mismatch), of an
 * unknown format or version, or with a field out of its allowed range. The message names the offset
 * and the field. Decoders throw nothing else on bad input, and never allocate more than the input
 * could describe.
 */
public final class CorruptDescriptorException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int offset;

    /** An exception for field {@code field} at byte {@code offset}, with details. */
    public CorruptDescriptorException(int offset, String field, String problem) {
        super("corrupt descriptor at byte " + offset + ", field " + field + ": " + problem);
        this.offset = offset;
    }

    /** The byte offset at which decoding failed. */
    public int offset() {
        return offset;
    }
}
