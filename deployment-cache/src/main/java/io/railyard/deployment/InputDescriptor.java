package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.io.BaseEncoding;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One consumed partition group of a task's deployment descriptor: the group id, the subpartitions
 * the task reads of each of the group's partitions ({@code [firstSubpartition, firstSubpartition +
 * numSubpartitions)}, the same for every partition of a group), and the group's shuffle
 * descriptors, either inline (the encoded {@link GroupDescriptors}, shared with every other
 * consumer of the group) or as the key of a blob holding them. Immutable; the inline bytes are
 * shared, not copied: do not modify them.
 */
public final class InputDescriptor {
    private final int group;
    private final int firstSubpartition;
    private final int numSubpartitions;
    private final byte @Nullable [] inline;
    private final @Nullable BlobKey blob;
    private final byte @Nullable [] blobKeyBytes; // the key's 32 raw bytes, decoded once

    private InputDescriptor(
            int group,
            int firstSubpartition,
            int numSubpartitions,
            byte @Nullable [] inline,
            @Nullable BlobKey blob,
            byte @Nullable [] blobKeyBytes) {
        checkArgument(group >= 0, "group must be >= 0, was %s", group);
        checkArgument(
                firstSubpartition >= 0,
                "firstSubpartition must be >= 0, was %s",
                firstSubpartition);
        checkArgument(
                numSubpartitions >= 1 && numSubpartitions <= Integer.MAX_VALUE - firstSubpartition,
                "numSubpartitions must be in [1, %s] after firstSubpartition %s, was %s",
                Integer.MAX_VALUE - firstSubpartition,
                firstSubpartition,
                numSubpartitions);
        this.group = group;
        this.firstSubpartition = firstSubpartition;
        this.numSubpartitions = numSubpartitions;
        this.inline = inline;
        this.blob = blob;
        this.blobKeyBytes = blobKeyBytes;
    }

    /**
     * Shuffle descriptors shipped inside the task descriptor; the task reads {@code
     * numSubpartitions} subpartitions from {@code firstSubpartition} of each partition.
     *
     * @throws IllegalArgumentException if {@code group} or {@code firstSubpartition} is negative,
     *     or {@code numSubpartitions} is below 1 or overflows the range
     */
    public static InputDescriptor inline(
            int group, int firstSubpartition, int numSubpartitions, byte[] encodedGroup) {
        return new InputDescriptor(
                group, firstSubpartition, numSubpartitions, encodedGroup, null, null);
    }

    /**
     * Shuffle descriptors offloaded to the blob store under {@code key}; the subpartitions as
     * {@link #inline}.
     *
     * @throws IllegalArgumentException as {@link #inline}
     */
    public static InputDescriptor offloaded(
            int group, int firstSubpartition, int numSubpartitions, BlobKey key) {
        return new InputDescriptor(
                group,
                firstSubpartition,
                numSubpartitions,
                null,
                key,
                BaseEncoding.base16().lowerCase().decode(key.hex()));
    }

    /**
     * The same group and shuffle descriptors (shared, not copied) read at other subpartitions; this
     * one if they are the same. O(1).
     */
    InputDescriptor withSubpartitions(int first, int count) {
        return first == firstSubpartition && count == numSubpartitions
                ? this
                : new InputDescriptor(group, first, count, inline, blob, blobKeyBytes);
    }

    /** The consumed partition group. */
    public int group() {
        return group;
    }

    /** The first subpartition the task reads of each partition of the group. */
    public int firstSubpartition() {
        return firstSubpartition;
    }

    /** How many subpartitions, from {@link #firstSubpartition()}, it reads of each (>= 1). */
    public int numSubpartitions() {
        return numSubpartitions;
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

    /**
     * Equal when the group, the subpartitions and the inline bytes (by content) or the blob key are
     * equal.
     */
    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof InputDescriptor that
                && that.group == group
                && that.firstSubpartition == firstSubpartition
                && that.numSubpartitions == numSubpartitions
                && Arrays.equals(that.inline, inline)
                && Objects.equals(that.blob, blob);
    }

    @Override
    public int hashCode() {
        int hash = 31 * (31 * group + firstSubpartition) + numSubpartitions;
        return 31 * (31 * hash + Arrays.hashCode(inline)) + Objects.hashCode(blob);
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
        String read =
                "InputDescriptor{group="
                        + group
                        + ", subpartitions ["
                        + firstSubpartition
                        + ", "
                        + (firstSubpartition + numSubpartitions)
                        + "), ";
        return inline != null
                ? read + "inline " + inline.length + " bytes}"
                : read + "blob " + blob + "}";
    }
}
