package io.railyard.topology;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Arrays;
import java.util.Objects;

/**
 * A bit per index over a fixed range {@code [0, size)}, in a {@code long[]} allocated once.
 *
 * <p>Unlike {@link java.util.BitSet}, it keeps no count of the words in use: {@code BitSet.clear}
 * of its highest set bit scans down over every zero word below it, so a sparse set of marks that
 * are set and cleared one at a time — a ready queue of regions, the marks of one walk — costs
 * O(size / 64) per clear, which at a million regions turned a 2-second lifecycle into 35 seconds.
 * Here {@link #get}, {@link #set} and {@link #clear} are O(1), range operations and {@link
 * #nextSetBit} O(1 + words spanned). Indices are checked ({@link IndexOutOfBoundsException}). Not
 * thread-safe.
 */
public final class FixedBits {
    private final long[] words;
    private final int size;

    /**
     * {@code size} clear bits. O(size / 64).
     *
     * @throws IllegalArgumentException if {@code size} is negative
     */
    public FixedBits(int size) {
        checkArgument(size >= 0, "size must be >= 0, was %s", size);
        this.size = size;
        this.words = new long[(size + 63) >>> 6];
    }

    /** The number of bits. O(1). */
    public int size() {
        return size;
    }

    /** Whether bit {@code index} is set. O(1). */
    public boolean get(int index) {
        Objects.checkIndex(index, size);
        return (words[index >>> 6] & (1L << index)) != 0;
    }

    /** Sets bit {@code index}. O(1). */
    public void set(int index) {
        Objects.checkIndex(index, size);
        words[index >>> 6] |= 1L << index;
    }

    /** Sets bit {@code index} and returns whether it was set before. O(1). */
    public boolean getAndSet(int index) {
        Objects.checkIndex(index, size);
        int w = index >>> 6;
        long before = words[w];
        words[w] = before | (1L << index);
        return (before & (1L << index)) != 0;
    }

    /** Clears bit {@code index}. O(1). */
    public void clear(int index) {
        Objects.checkIndex(index, size);
        words[index >>> 6] &= ~(1L << index);
    }

    /** Sets bits {@code [from, to)}. O(1 + (to − from) / 64). */
    public void set(int from, int to) {
        setRange(from, to, true);
    }

    /** Clears bits {@code [from, to)}. O(1 + (to − from) / 64). */
    public void clear(int from, int to) {
        setRange(from, to, false);
    }

    private void setRange(int from, int to, boolean value) {
        Objects.checkFromToIndex(from, to, size);
        if (from == to) {
            return;
        }
        int first = from >>> 6;
        int last = (to - 1) >>> 6;
        long firstMask = -1L << from;
        long lastMask = -1L >>> -to;
        if (first == last) {
            apply(first, firstMask & lastMask, value);
            return;
        }
        apply(first, firstMask, value);
        Arrays.fill(words, first + 1, last, value ? -1L : 0L);
        apply(last, lastMask, value);
    }

    private void apply(int word, long mask, boolean value) {
        words[word] = value ? words[word] | mask : words[word] & ~mask;
    }

    /** Clears every bit. O(size / 64). */
    public void clear() {
        Arrays.fill(words, 0L);
    }

    /**
     * The lowest set bit at or above {@code from}, or -1 if none; {@code from} may be {@link
     * #size()} or more (then -1). O(1 + words scanned).
     *
     * @throws IndexOutOfBoundsException if {@code from} is negative
     */
    public int nextSetBit(int from) {
        if (from < 0) {
            throw new IndexOutOfBoundsException("from must be >= 0, was " + from);
        }
        if (from >= size) {
            return -1;
        }
        int w = from >>> 6;
        long word = words[w] & (-1L << from);
        while (word == 0) {
            if (++w == words.length) {
                return -1;
            }
            word = words[w];
        }
        return (w << 6) + Long.numberOfTrailingZeros(word);
    }

    /**
     * The lowest clear bit at or above {@code from}, or {@link #size()} if none. O(1 + words
     * scanned).
     *
     * @throws IndexOutOfBoundsException if {@code from} is negative
     */
    public int nextClearBit(int from) {
        if (from < 0) {
            throw new IndexOutOfBoundsException("from must be >= 0, was " + from);
        }
        if (from >= size) {
            return size;
        }
        int w = from >>> 6;
        long word = ~words[w] & (-1L << from);
        while (word == 0) {
            if (++w == words.length) {
                return size;
            }
            word = ~words[w];
        }
        return Math.min(size, (w << 6) + Long.numberOfTrailingZeros(word));
    }

    /** The number of set bits. O(size / 64). */
    public int cardinality() {
        int count = 0;
        for (long word : words) {
            count += Long.bitCount(word);
        }
        return count;
    }

    @Override
    public String toString() {
        return "FixedBits[size=" + size + ", set=" + cardinality() + "]";
    }
}
