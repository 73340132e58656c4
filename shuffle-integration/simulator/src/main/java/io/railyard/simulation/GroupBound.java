package io.railyard.simulation;

import it.unimi.dsi.fastutil.ints.IntArrays;
import java.util.Arrays;

/**
 * When the consumers of one group can finish, given when its producers emitted their data: the
 * fluid consumer model of {@link JobSimulator}, evaluated for a whole group at once.
 *
 * <h2>Model</h2>
 *
 * Producer {@code i} emits its data (proportional to its weight {@code w_i}) evenly over {@code
 * [start_i, end_i]}, so the fraction of the group's data that exists at time {@code s} is the
 * piecewise-linear, non-decreasing {@code A(s) = sum_i w_i * clamp((s - start_i) / (end_i -
 * start_i), 0, 1) / sum_i w_i}. A consumer starting at {@code c} with work {@code W} processes its
 * share at rate {@code 1 / W} but never ahead of the data: its progress at {@code t} is {@code p(t)
 * = min((t - c) / W, min over s in (c, t] of A(s-) + (t - s) / W)}, where {@code A(s-)} is the
 * value just before {@code s} (it differs from {@code A(s)} only for a producer with zero
 * duration). So it has read and processed all of this group's data at
 *
 * <pre>{@code bound = max(c + W, max over breakpoints s > c of s + (1 - A(s-)) W)}</pre>
 *
 * (the maximum of a piecewise-linear function is at a breakpoint). Its finish is the largest bound
 * over its groups.
 *
 * <h2>Cost</h2>
 *
 * The bound is the upper envelope of one line per breakpoint ({@code W -> s + (1 - A(s-)) W}),
 * restricted to breakpoints after the consumer's start: consumers are answered in descending start
 * order while lines are added in descending time, so slopes arrive in increasing order and the
 * envelope is a stack (the convex hull trick); a query is a binary search. One call is {@code O((n
 * + m) log(n + m))} for {@code n} producers and {@code m} consumers, not {@code O(n m)}. Scratch
 * arrays grow to the largest group and are reused; not thread-safe.
 */
final class GroupBound {
    private double[] eventTime = new double[16];
    private double[] eventSlope = new double[16];
    private double[] eventJump = new double[16];
    private int[] order = new int[16];
    // Distinct breakpoints: time, A just before, A at/after, slope after.
    private double[] time = new double[16];
    private double[] before = new double[16];
    private double[] after = new double[16];
    private double[] slope = new double[16];
    private int[] queries = new int[16];
    private double[] hullSlope = new double[16];
    private double[] hullIntercept = new double[16];
    private int hullSize;

    /**
     * Fills {@code bound[q]} (the time consumer {@code q} has read its share, see the class notes)
     * and {@code available[q]} ({@code A(cStart[q])}, the fraction of data produced before it
     * started) for the {@code m} consumers, given the {@code n} producers' emission intervals and
     * weights (all weights {@code > 0}, {@code end >= start}).
     */
    void evaluate(
            double[] pStart,
            double[] pEnd,
            double[] pWeight,
            int n,
            double[] cStart,
            double[] cWork,
            int m,
            double[] bound,
            double[] available) {
        int k = breakpoints(pStart, pEnd, pWeight, n);
        queries = grow(queries, m);
        for (int q = 0; q < m; q++) {
            queries[q] = q;
        }
        IntArrays.quickSort(queries, 0, m, (a, b) -> Double.compare(cStart[b], cStart[a]));
        hullSize = 0;
        int j = k - 1;
        for (int i = 0; i < m; i++) {
            int q = queries[i];
            double c = cStart[q];
            while (j >= 0 && time[j] > c) {
                addLine(1 - before[j], time[j]);
                j--;
            }
            double a = j < 0 ? 0 : Math.min(1, after[j] + slope[j] * (c - time[j]));
            double best = c + cWork[q];
            if (hullSize > 0) {
                best = Math.max(best, query(cWork[q]));
            }
            bound[q] = best;
            available[q] = a;
        }
    }

    /** Builds the distinct breakpoints of A; returns their number. */
    private int breakpoints(double[] pStart, double[] pEnd, double[] pWeight, int n) {
        double total = 0;
        for (int i = 0; i < n; i++) {
            total += pWeight[i];
        }
        eventTime = grow(eventTime, 2 * n);
        eventSlope = grow(eventSlope, 2 * n);
        eventJump = grow(eventJump, 2 * n);
        order = grow(order, 2 * n);
        int events = 0;
        for (int i = 0; i < n; i++) {
            double share = pWeight[i] / total;
            double duration = pEnd[i] - pStart[i];
            if (duration > 0) {
                events = event(events, pStart[i], share / duration, 0);
                events = event(events, pEnd[i], -share / duration, 0);
            } else {
                events = event(events, pEnd[i], 0, share);
            }
        }
        for (int e = 0; e < events; e++) {
            order[e] = e;
        }
        double[] times = eventTime;
        IntArrays.quickSort(order, 0, events, (a, b) -> Double.compare(times[a], times[b]));
        time = grow(time, events);
        before = grow(before, events);
        after = grow(after, events);
        slope = grow(slope, events);
        int k = 0;
        double a = 0;
        double rate = 0;
        for (int e = 0; e < events; ) {
            double t = eventTime[order[e]];
            if (k > 0) {
                a = Math.min(1, a + rate * (t - time[k - 1]));
            }
            time[k] = t;
            before[k] = a;
            for (; e < events && eventTime[order[e]] == t; e++) {
                rate += eventSlope[order[e]];
                a += eventJump[order[e]];
            }
            rate = Math.max(0, rate);
            a = Math.min(1, a);
            after[k] = a;
            slope[k] = rate;
            k++;
        }
        return k;
    }

    private int event(int index, double t, double slopeDelta, double jump) {
        eventTime[index] = t;
        eventSlope[index] = slopeDelta;
        eventJump[index] = jump;
        return index + 1;
    }

    /** Adds the line {@code x -> intercept + slope x}; slopes never decrease, intercepts drop. */
    private void addLine(double lineSlope, double intercept) {
        if (hullSize > 0 && lineSlope <= hullSlope[hullSize - 1]) {
            return; // no steeper and lower: never above the last line for x >= 0
        }
        while (hullSize >= 2 && useless(hullSize - 2, hullSize - 1, lineSlope, intercept)) {
            hullSize--;
        }
        hullSlope = grow(hullSlope, hullSize + 1);
        hullIntercept = grow(hullIntercept, hullSize + 1);
        hullSlope[hullSize] = lineSlope;
        hullIntercept[hullSize] = intercept;
        hullSize++;
    }

    /** Whether line {@code j} is nowhere strictly above both line {@code i} and the new line. */
    private boolean useless(int i, int j, double lineSlope, double intercept) {
        return (hullIntercept[i] - intercept) * (hullSlope[j] - hullSlope[i])
                <= (hullIntercept[i] - hullIntercept[j]) * (lineSlope - hullSlope[i]);
    }

    /** The envelope's value at {@code x >= 0}: values along the stack are unimodal in x. */
    private double query(double x) {
        int lo = 0;
        int hi = hullSize - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (value(mid, x) < value(mid + 1, x)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return value(lo, x);
    }

    private double value(int line, double x) {
        return hullIntercept[line] + hullSlope[line] * x;
    }

    private static double[] grow(double[] array, int size) {
        return array.length >= size
                ? array
                : Arrays.copyOf(array, Math.max(size, 2 * array.length));
    }

    private static int[] grow(int[] array, int size) {
        return array.length >= size
                ? array
                : Arrays.copyOf(array, Math.max(size, 2 * array.length));
    }
}
