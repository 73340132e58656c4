package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * One consumed partition group of a task's deployment descriptor: the group id, the subpartitions
 * the task reads of each of the group's partitions ({@code [firstSubpartition, firstSubpartition +
 * numSubpartitions)}, the same for every partition of a group), and the group's shuffle
 * descriptors, either {@link Inline} (the encoded {@link GroupDescriptors}, shared with every other
 * consumer of the group) or {@link Offloaded} (the key of a blob holding them). Each shape carries
 * exactly what its kind needs; callers branch with {@code instanceof}. Immutable.
 */
public sealed interface InputDescriptor permits InputDescriptor.Inline, InputDescriptor.Offloaded {

    /** The consumed partition group. */
    int group();

    /** The first subpartition the task reads of each partition of the group. */
    int firstSubpartition();

    /** How many subpartitions, from {@link #firstSubpartition()}, it reads of each (>= 1). */
    int numSubpartitions();

    /**
     * Shuffle descriptors shipped inside the task descriptor; the task reads {@code
     * numSubpartitions} subpartitions from {@code firstSubpartition} of each partition. Shares
     * {@code encodedGroup}, does not copy it.
     *
     * @throws IllegalArgumentException if {@code group} or {@code firstSubpartition} is negative,
     *     or {@code numSubpartitions} is below 1 or overflows the range
     */
    static Inline inline(
            int group, int firstSubpartition, int numSubpartitions, byte[] encodedGroup) {
        return new Inline(group, firstSubpartition, numSubpartitions, encodedGroup);
    }

    /**
     * Shuffle descriptors offloaded to the blob store under {@code key}; the subpartitions as
     * {@link #inline}.
     *
     * @throws IllegalArgumentException as {@link #inline}
     */
    static Offloaded offloaded(
            int group, int firstSubpartition, int numSubpartitions, BlobKey key) {
        return new Offloaded(group, firstSubpartition, numSubpartitions, key);
    }

    /**
     * Shuffle descriptors shipped inside the task descriptor: the encoded {@link GroupDescriptors},
     * shared with every other consumer of the group, not copied.
     *
     * <p>Equal when the group, the subpartitions and the bytes (by content) are equal.
     *
     * @param group the consumed partition group, {@code >= 0}
     * @param firstSubpartition the first subpartition read of each partition, {@code >= 0}
     * @param numSubpartitions how many subpartitions are read of each, {@code >= 1}
     * @param encodedGroup the encoded group, the backing array itself: do not modify
     */
    @SuppressWarnings("ArrayRecordComponent") // equals, hashCode and toString read the content
    record Inline(int group, int firstSubpartition, int numSubpartitions, byte[] encodedGroup)
            implements InputDescriptor {
        /**
         * Checks the range and that the bytes are given.
         *
         * @throws IllegalArgumentException as {@link InputDescriptor#inline}
         */
        public Inline {
            checkRange(group, firstSubpartition, numSubpartitions);
            requireNonNull(encodedGroup, "encodedGroup");
        }

        @Override
        public boolean equals(@Nullable Object other) {
            return other instanceof Inline that
                    && that.group == group
                    && that.firstSubpartition == firstSubpartition
                    && that.numSubpartitions == numSubpartitions
                    && Arrays.equals(that.encodedGroup, encodedGroup);
        }

        @Override
        public int hashCode() {
            int hash = 31 * (31 * group + firstSubpartition) + numSubpartitions;
            return 31 * hash + Arrays.hashCode(encodedGroup);
        }

        @Override
        public String toString() {
            return describe(this) + "inline " + encodedGroup.length + " bytes}";
        }
    }

    /**
     * Shuffle descriptors offloaded to the blob store: the key of the blob holding the encoded
     * {@link GroupDescriptors}.
     *
     * <p>Equal when the group, the subpartitions and the key are equal.
     *
     * @param group the consumed partition group, {@code >= 0}
     * @param firstSubpartition the first subpartition read of each partition, {@code >= 0}
     * @param numSubpartitions how many subpartitions are read of each, {@code >= 1}
     * @param key the blob's key
     */
    record Offloaded(int group, int firstSubpartition, int numSubpartitions, BlobKey key)
            implements InputDescriptor {
        /**
         * Checks the range and that the key is given.
         *
         * @throws IllegalArgumentException as {@link InputDescriptor#inline}
         */
        public Offloaded {
            checkRange(group, firstSubpartition, numSubpartitions);
            requireNonNull(key, "key");
        }

        @Override
        public String toString() {
            return describe(this) + "blob " + key + "}";
        }
    }

    // Built on every descriptor: the three-value message is formatted only on failure (Guava's
    // checkArgument with three values would box them on every call).
    private static void checkRange(int group, int firstSubpartition, int numSubpartitions) {
        checkArgument(group >= 0, "group must be >= 0, was %s", group);
        checkArgument(
                firstSubpartition >= 0,
                "firstSubpartition must be >= 0, was %s",
                firstSubpartition);
        if (numSubpartitions < 1 || numSubpartitions > Integer.MAX_VALUE - firstSubpartition) {
            throw new IllegalArgumentException(
                    String.format(
                            "numSubpartitions must be in [1, %s] after firstSubpartition %s, was %s",
                            Integer.MAX_VALUE - firstSubpartition,
                            firstSubpartition,
                            numSubpartitions));
        }
    }

    /** The start of either shape's {@code toString()}: the group and the subpartitions read. */
    private static String describe(InputDescriptor input) {
        return "InputDescriptor{group="
                + input.group()
                + ", subpartitions ["
                + input.firstSubpartition()
                + ", "
                + (input.firstSubpartition() + input.numSubpartitions())
                + "), ";
    }
}
