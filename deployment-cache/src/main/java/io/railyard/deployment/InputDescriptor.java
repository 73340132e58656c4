package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.io.BaseEncoding;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One consumed partition group of a task's deployment descriptor: the group id and its shuffle
 * descriptors, either inline (the encoded {@link GroupDescriptors}, shared with every other
 * consumer of the group) or as the key of a blob holding them. Immutable; the inline bytes are
 * shared, not copied: do not modify them.
 */
public final class InputDescriptor {
    private final int group;
    private final byte @Nullable [] inline;
    private final @Nullable BlobKey blob;
    private final byte @Nullable [] blobKeyBytes; // the key's 32 raw bytes, decoded once

    private InputDescriptor(int group, byte @Nullable [] inline, @Nullable BlobKey blob) {
        checkArgument(group >= 0, "group must be >= 0, was %s", group);
        this.group = group;
        this.inline = inline;
        this.blob = blob;
        this.blobKeyBytes =
                blob == null ? null : BaseEncoding.base16().lowerCase().decode(blob.hex());
    }

    /** Shuffle descriptors shipped inside the task descriptor. */
    public static InputDescriptor inline(int group, byte[] encodedGroup) {
        return new InputDescriptor(group, encodedGroup, null);
    }

    /** Shuffle descriptors offloaded to the blob store under {@code key}. */
    public static InputDescriptor offloaded(int group, BlobKey key) {
        return new InputDescriptor(group, null, key);
    }

    /** The consumed partition group. */
    public int group() {
        return group;
    }

    /** Whether the descriptors are in the blob store. */
    public boolean isOffloaded() {
        return blob != null;
    }

    /** The encoded group. @throws IllegalStateException if offloaded */
    public byte[] inlineBytes() {
        if (inline == null) {
            throw new IllegalStateException("group " + group + " is offloaded to blob " + blob);
        }
        return inline;
    }

    /** The blob key. @throws IllegalStateException if inline */
    public BlobKey blobKey() {
        if (blob == null) {
            throw new IllegalStateException("group " + group + " is inline, not offloaded");
        }
        return blob;
    }

    /** Equal when the group and the inline bytes (by content) or the blob key are equal. */
    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof InputDescriptor that
                && that.group == group
                && Arrays.equals(that.inline, inline)
                && Objects.equals(that.blob, blob);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * group + Arrays.hashCode(inline)) + Objects.hashCode(blob);
    }

    /** The blob key's raw bytes, shared: do not modify. @throws IllegalStateException if inline */
    byte[] blobKeyBytes() {
        if (blobKeyBytes == null) {
            throw new IllegalStateException("group " + group + " is inline, not offloaded");
        }
        return blobKeyBytes;
    }

    @Override
    public String toString() {
        return inline != null
                ? "InputDescriptor{group=" + group + ", inline " + inline.length + " bytes}"
                : "InputDescriptor{group=" + group + ", blob " + blob + "}";
    }
}
