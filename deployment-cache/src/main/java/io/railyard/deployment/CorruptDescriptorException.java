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
    private final boolean inInflatedPayload;

    /** An exception for field {@code field} at byte {@code offset} of the framed bytes. */
    public CorruptDescriptorException(int offset, String field, String problem) {
        this(offset, false, field, problem);
    }

    /**
     * An exception for field {@code field} at byte {@code offset}, of the framed bytes or, if
     * {@code inInflatedPayload}, of the payload inflated from them (a deflated frame's fields have
     * no offset in the framed bytes).
     */
    public CorruptDescriptorException(
            int offset, boolean inInflatedPayload, String field, String problem) {
        super(
                "corrupt descriptor at byte "
                        + offset
                        + (inInflatedPayload ? " of the inflated payload" : "")
                        + ", field "
                        + field
                        + ": "
                        + problem);
        this.offset = offset;
        this.inInflatedPayload = inInflatedPayload;
    }

    /**
     * The byte offset at which decoding failed: in the framed bytes, or in the inflated payload if
     * {@link #inInflatedPayload()}.
     */
    public int offset() {
        return offset;
    }

    /** Whether {@link #offset()} counts bytes of the payload inflated from a deflated frame. */
    public boolean inInflatedPayload() {
        return inInflatedPayload;
    }
}
