package io.railyard.simulation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link GroupBound} against two oracles: the maximum over every breakpoint evaluated directly (O(n
 * m), exact), and a fluid consumer stepped in small time steps (the model itself, not its closed
 * form).
 */
class GroupBoundTest {
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
    void hull_matchesEveryBreakpointEvaluated(long seed) {
        Case c = Case.random(new SplittableRandom(seed), 1 + (int) (seed % 40), 25);
        c.evaluate();
        for (int q = 0; q < c.m; q++) {
            assertThat(c.bound[q]).as("consumer %d", q).isCloseTo(c.direct(q), within(1e-9));
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {21, 22, 23, 24, 25, 26, 27, 28})
    void bound_isWhenASteppedFluidConsumerFinishes(long seed) {
        Case c = Case.random(new SplittableRandom(seed), 1 + (int) (seed % 6), 6);
        c.evaluate();
        double dt = 1e-4;
        for (int q = 0; q < c.m; q++) {
            assertThat(c.bound[q]).as("consumer %d", q).isCloseTo(c.stepped(q, dt), within(0.01));
            assertThat(c.available[q]).isCloseTo(c.a(c.cStart[q]), within(1e-9));
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {31, 32, 33})
    void zeroDurationProducers_jumpAndAreCountedOnlyAfterTheyEnd(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Case c = Case.random(random, 5, 8);
        for (int i = 0; i < c.n; i += 2) {
            c.pStart[i] = c.pEnd[i]; // emits everything at once
        }
        c.evaluate();
        for (int q = 0; q < c.m; q++) {
            assertThat(c.bound[q]).isCloseTo(c.direct(q), within(1e-9));
        }
    }

    /** Producers' intervals and weights, consumers' starts and works. */
    private static final class Case {
        final int n;
        final int m;
        final double[] pStart;
        final double[] pEnd;
        final double[] pWeight;
        final double[] cStart;
        final double[] cWork;
        final double[] bound;
        final double[] available;

        Case(int n, int m) {
            this.n = n;
            this.m = m;
            pStart = new double[n];
            pEnd = new double[n];
            pWeight = new double[n];
            cStart = new double[m];
            cWork = new double[m];
            bound = new double[m];
            available = new double[m];
        }

        static Case random(SplittableRandom random, int n, int m) {
            Case c = new Case(n, m);
            for (int i = 0; i < n; i++) {
                c.pStart[i] = random.nextInt(4) == 0 ? 0 : random.nextDouble(10);
                c.pEnd[i] = c.pStart[i] + 0.1 + random.nextDouble(10);
                c.pWeight[i] = 0.1 + random.nextDouble(5);
            }
            for (int q = 0; q < m; q++) {
                c.cStart[q] = random.nextInt(5) == 0 ? 0 : random.nextDouble(22);
                c.cWork[q] = 0.05 + random.nextDouble(random.nextBoolean() ? 2 : 20);
            }
            return c;
        }

        void evaluate() {
            new GroupBound().evaluate(pStart, pEnd, pWeight, n, cStart, cWork, m, bound, available);
        }

        /** A(s): the fraction of the data emitted by time s (inclusive). */
        double a(double s) {
            double total = 0;
            double done = 0;
            for (int i = 0; i < n; i++) {
                total += pWeight[i];
                if (s >= pEnd[i]) {
                    done += pWeight[i];
                } else if (s > pStart[i]) {
                    done += pWeight[i] * (s - pStart[i]) / (pEnd[i] - pStart[i]);
                }
            }
            return done / total;
        }

        /** A just before s. */
        double aBefore(double s) {
            double total = 0;
            double done = 0;
            for (int i = 0; i < n; i++) {
                total += pWeight[i];
                if (s > pEnd[i]) {
                    done += pWeight[i];
                } else if (s > pStart[i]) {
                    done += pWeight[i] * (s - pStart[i]) / (pEnd[i] - pStart[i]);
                }
            }
            return done / total;
        }

        double direct(int q) {
            double best = cStart[q] + cWork[q];
            for (int i = 0; i < n; i++) {
                for (double s : new double[] {pStart[i], pEnd[i]}) {
                    if (s > cStart[q]) {
                        best = Math.max(best, s + (1 - aBefore(s)) * cWork[q]);
                    }
                }
            }
            return best;
        }

        /** Steps dp = dt / W, never above A(t); the time p reaches 1. */
        double stepped(int q, double dt) {
            double p = 0;
            double t = cStart[q];
            while (p < 1 - 1e-12) {
                t += dt;
                p = Math.min(p + dt / cWork[q], a(t));
            }
            return t;
        }
    }
}
