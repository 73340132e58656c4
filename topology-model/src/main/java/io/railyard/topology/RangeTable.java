package io.railyard.topology;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkElementIndex;

import java.util.Arrays;

/**
 * An immutable split of the ints {@code [0, total)} into consecutive ranges, range {@code i} being
 * {@code [start(i), end(i))}; ranges may be empty.
 *
 * <p>This is the one shape behind every dense id space in Railyard: the tasks of each job vertex,
 * the partitions of each dataset, the consumer groups of each edge. It stores {@code n + 1} ints
 * and nothing per element.
 *
 * <p>Range bounds are O(1). {@link #indexOf(int)} first looks up a bucket index (at most {@code
 * min(2n, 1024) + 2} more ints: buckets of equal power-of-two width, each remembering the range its
 * first element falls in) and then binary-searches only the ranges that meet the value's bucket.
 * With {@code n <= 512} ranges none smaller than {@code 1/c} of the mean size, a bucket meets at
 * most {@code c + 1} ranges, so the lookup is O(1) for ranges of comparable size — the tasks of up
 * to 512 job vertices of comparable parallelism. With more ranges of comparable size it is
 * O(log(c·n / 512)); with very unequal sizes (many small ranges sharing a bucket) O(log n) at
 * worst. Nothing allocates after construction.
 */
public final class RangeTable {
    private static final int MAX_BUCKETS = 1024;

    private final int[] starts;

    /** Elements {@code [b << shift, (b + 1) << shift)} form bucket {@code b}. */
    private final int shift;

    /** The range holding the first element of each bucket, then the last range index. */
    private final int[] rangeOfBucket;

    private RangeTable(int[] starts) {
        this.starts = starts;
        int n = starts.length - 1;
        int total = starts[n];
        // The smallest power-of-two width that keeps the bucket count at most min(2n, 1024).
        // The array always has that many slots (plus one), so a table's footprint depends on n
        // alone, never on the sizes of its ranges.
        int maxBuckets = (int) Math.min(2L * Math.max(n, 1), MAX_BUCKETS);
        int width = 1;
        int s = 0;
        while ((long) width * maxBuckets < total) {
            width <<= 1;
            s++;
        }
        this.shift = s;
        int buckets = total == 0 ? 0 : ((total - 1) >>> s) + 1;
        this.rangeOfBucket = new int[maxBuckets + 1];
        int range = 0;
        for (int b = 0; b < buckets; b++) {
            int first = b << s;
            while (starts[range + 1] <= first) {
                range++;
            }
            rangeOfBucket[b] = range;
        }
        Arrays.fill(rangeOfBucket, buckets, maxBuckets + 1, Math.max(n - 1, 0));
    }

    /**
     * A table from range sizes: range {@code i} holds {@code sizes[i]} elements. O(n).
     *
     * @throws IllegalArgumentException if a size is negative or the total exceeds {@link
     *     Integer#MAX_VALUE}
     */
    public static RangeTable ofSizes(int[] sizes) {
        int[] starts = new int[sizes.length + 1];
        long total = 0;
        for (int i = 0; i < sizes.length; i++) {
            checkArgument(sizes[i] >= 0, "size of range %s must be >= 0, was %s", i, sizes[i]);
            total += sizes[i];
            checkArgument(
                    total <= Integer.MAX_VALUE,
                    "total of the first %s ranges is %s, above the int id space (max %s)",
                    i + 1,
                    total,
                    Integer.MAX_VALUE);
            starts[i + 1] = (int) total;
        }
        return new RangeTable(starts);
    }

    /** The number of ranges. */
    public int numRanges() {
        return starts.length - 1;
    }

    /** The number of elements over all ranges; the id space is {@code [0, total())}. */
    public int total() {
        return starts[starts.length - 1];
    }

    /** The first element of range {@code i}. O(1). */
    public int start(int i) {
        checkElementIndex(i, numRanges(), "range");
        return starts[i];
    }

    /** The end (exclusive) of range {@code i}. O(1). */
    public int end(int i) {
        checkElementIndex(i, numRanges(), "range");
        return starts[i + 1];
    }

    /** The number of elements of range {@code i}. O(1). */
    public int size(int i) {
        checkElementIndex(i, numRanges(), "range");
        return starts[i + 1] - starts[i];
    }

    /** Range {@code i} packed as a {@link PackedRange}. O(1), no allocation. */
    public long range(int i) {
        checkElementIndex(i, numRanges(), "range");
        return PackedRange.pack(starts[i], starts[i + 1]);
    }

    /**
     * The index of the range that contains {@code value}. O(1) for up to 512 ranges of comparable
     * size, O(log n) at worst (see the class notes); no allocation.
     *
     * @throws IndexOutOfBoundsException if {@code value} is not in {@code [0, total())}
     */
    public int indexOf(int value) {
        checkElementIndex(value, total(), "element");
        // Largest i with starts[i] <= value; empty ranges share their start with the next range,
        // so the search lands on the non-empty one. Only the ranges meeting the bucket qualify.
        int bucket = value >>> shift;
        int lo = rangeOfBucket[bucket];
        int hi = rangeOfBucket[bucket + 1];
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (starts[mid] <= value) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /**
     * How many ranges {@link #indexOf(int)} binary-searches for {@code value}: those that meet its
     * bucket. O(1). For tests of the complexity stated in the class notes.
     */
    int rangesSearched(int value) {
        checkElementIndex(value, total(), "element");
        int bucket = value >>> shift;
        return rangeOfBucket[bucket + 1] - rangeOfBucket[bucket] + 1;
    }

    @Override
    public String toString() {
        return "RangeTable" + Arrays.toString(starts);
    }
}
