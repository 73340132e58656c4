package io.railyard.topology;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Objects;

/**
 * A fixed-length array of non-negative ints, each stored in the same power-of-two number of bits —
 * 1, 2, 4, 8, 16 or 32 — just wide enough for the largest value stored so far. A value that does
 * not fit widens the whole array first, so a counter that only ever holds 0 or 1 costs one bit, not
 * four bytes: the per-region counters of a million singleton regions take 250 KB instead of 8 MB.
 *
 * <h2>Cost</h2>
 *
 * {@link #get} is O(1): a word load, a shift and a mask. {@link #set} and {@link #add} are O(1)
 * unless the value needs more bits than the array has; then the array is copied at the wider width
 * first, O(size). Widths only grow and at most double five times, so over the array's life the
 * widening costs O(size × 5) in total. Memory is {@code ceil(size × bits / 64)} longs.
 *
 * <p>Not thread-safe. Indices are checked ({@link IndexOutOfBoundsException}); negative values are
 * refused ({@link IllegalArgumentException}), since every use is a count, an attempt number or an
 * id.
 */
public final class PackedInts {
    private static final int MAX_BITS_LOG2 = 5; // 32 bits

    private final int size;
    private long[] words;
    private int bitsLog2; // bits per value = 1 << bitsLog2
    private int perWordLog2; // values per word = 1 << perWordLog2
    private long mask;

    private PackedInts(int size, int bitsLog2) {
        checkArgument(size >= 0, "size must be >= 0, was %s", size);
        this.size = size;
        this.words = new long[wordsFor(size, bitsLog2)];
        setWidth(bitsLog2);
    }

    /** {@code size} zeros, one bit each until a larger value is stored. O(size / 64). */
    public static PackedInts zeros(int size) {
        return new PackedInts(size, 0);
    }

    /**
     * {@code size} zeros, already wide enough for values up to {@code maxValue} (no widening until
     * a value exceeds it). O(size × bits / 64).
     *
     * @throws IllegalArgumentException if {@code size} or {@code maxValue} is negative
     */
    public static PackedInts withMaxValue(int size, int maxValue) {
        checkArgument(maxValue >= 0, "maxValue must be >= 0, was %s", maxValue);
        return new PackedInts(size, bitsLog2For(maxValue));
    }

    /** The number of values. O(1). */
    public int size() {
        return size;
    }

    /** The bits each value takes now: 1, 2, 4, 8, 16 or 32. O(1). */
    public int bitsPerValue() {
        return 1 << bitsLog2;
    }

    /** The value at {@code index}. O(1). */
    public int get(int index) {
        Objects.checkIndex(index, size);
        int shift = (index & ((1 << perWordLog2) - 1)) << bitsLog2;
        return (int) ((words[index >>> perWordLog2] >>> shift) & mask);
    }

    /**
     * Stores {@code value} at {@code index}, widening the array first if it does not fit. O(1), or
     * O(size) when it widens.
     *
     * @throws IllegalArgumentException if {@code value} is negative
     */
    public void set(int index, int value) {
        Objects.checkIndex(index, size);
        checkArgument(value >= 0, "value must be >= 0, was %s (index %s)", value, index);
        if ((value & ~mask) != 0) {
            widen(bitsLog2For(value));
        }
        int word = index >>> perWordLog2;
        int shift = (index & ((1 << perWordLog2) - 1)) << bitsLog2;
        words[word] = (words[word] & ~(mask << shift)) | ((long) value << shift);
    }

    /**
     * Adds {@code delta} to the value at {@code index} and returns the new value: one word read and
     * written when the result fits the current width. O(1), or O(size) when it widens.
     *
     * @throws IllegalArgumentException if the result would be negative or overflow an int
     */
    public int add(int index, int delta) {
        Objects.checkIndex(index, size);
        int word = index >>> perWordLog2;
        int shift = (index & ((1 << perWordLog2) - 1)) << bitsLog2;
        long bits = words[word];
        long result = ((bits >>> shift) & mask) + delta;
        if (result >= 0 && result <= (mask & Integer.MAX_VALUE)) { // fits: one word read, written
            words[word] = (bits & ~(mask << shift)) | (result << shift);
            return (int) result;
        }
        checkArgument(
                result >= 0 && result <= Integer.MAX_VALUE,
                "value at %s would become %s: must stay in [0, %s]",
                index,
                result,
                Integer.MAX_VALUE);
        set(index, (int) result);
        return (int) result;
    }

    /**
     * Subtracts one from the value at {@code index} and returns the new value, refusing to go below
     * zero as a state error (a counter counted down once too often). O(1).
     *
     * @throws IllegalStateException if the value is already 0
     */
    public int decrementAndGet(int index) {
        if (get(index) == 0) {
            throw new IllegalStateException("value at " + index + " is 0: cannot decrement");
        }
        return add(index, -1);
    }

    /**
     * Stores {@code value} at every index of {@code [from, to)}, whole words at a time. O((to −
     * from) × bits / 64 + values per word), or O(size) when it widens.
     *
     * @throws IllegalArgumentException if {@code value} is negative
     */
    public void fill(int from, int to, int value) {
        Objects.checkFromToIndex(from, to, size);
        if (from == to) {
            return;
        }
        set(from, value); // checks and widens
        int perWord = 1 << perWordLog2;
        int i = from + 1;
        for (; i < to && (i & (perWord - 1)) != 0; i++) {
            set(i, value);
        }
        long pattern = 0;
        for (int k = 0; k < perWord; k++) {
            pattern |= (long) value << (k << bitsLog2);
        }
        for (; i + perWord <= to; i += perWord) {
            words[i >>> perWordLog2] = pattern;
        }
        for (; i < to; i++) {
            set(i, value);
        }
    }

    /** An independent copy, at the same width. O(size × bits / 64). */
    public PackedInts copy() {
        return new PackedInts(size, bitsLog2, words.clone());
    }

    private PackedInts(int size, int bitsLog2, long[] words) {
        this.size = size;
        this.words = words;
        setWidth(bitsLog2);
    }

    private void widen(int newBitsLog2) {
        PackedInts wider = new PackedInts(size, newBitsLog2);
        for (int i = 0; i < size; i++) {
            int value = get(i);
            if (value != 0) {
                wider.set(i, value);
            }
        }
        this.words = wider.words;
        setWidth(newBitsLog2);
    }

    private void setWidth(int newBitsLog2) {
        this.bitsLog2 = newBitsLog2;
        this.perWordLog2 = 6 - newBitsLog2;
        this.mask = newBitsLog2 == MAX_BITS_LOG2 ? 0xFFFF_FFFFL : (1L << (1 << newBitsLog2)) - 1;
    }

    /** The log2 of the fewest power-of-two bits that hold {@code value} (≥ 0). */
    private static int bitsLog2For(int value) {
        int bits = Math.max(1, 32 - Integer.numberOfLeadingZeros(value));
        return 32 - Integer.numberOfLeadingZeros(bits - 1);
    }

    private static int wordsFor(int size, int bitsLog2) {
        return (int) ((((long) size << bitsLog2) + 63) >>> 6);
    }

    @Override
    public String toString() {
        return "PackedInts[size=" + size + ", bits=" + bitsPerValue() + "]";
    }
}
