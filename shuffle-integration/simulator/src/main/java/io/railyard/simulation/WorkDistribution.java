package io.railyard.simulation;

import java.util.Locale;
import java.util.SplittableRandom;

/**
 * How much work a task of a job vertex has, in the simulation's time units (a task alone in its
 * slot with all its input at hand finishes after its work). Every distribution has a positive,
 * finite mean; samples are positive. Immutable.
 *
 * <p>Text form ({@link #parse}): {@code constant:W}, {@code uniform:LOW:HIGH} ({@code 0 < LOW <=
 * HIGH}) or {@code lognormal:MEAN:SIGMA} (the distribution's mean and the standard deviation of its
 * logarithm, {@code 0 <= SIGMA <= 4}).
 */
public sealed interface WorkDistribution {
    /** The largest work or mean accepted, so that sums over a million tasks stay exact enough. */
    double MAX_WORK = 1e9;

    /** The distribution's mean. */
    double mean();

    /** One sample, drawn from {@code random}. */
    double sample(SplittableRandom random);

    /** The same shape with every sample (and the mean) multiplied by {@code factor > 0}. */
    WorkDistribution scaled(double factor);

    /**
     * Parses the text form.
     *
     * @throws IllegalArgumentException naming the text and what is allowed, if it is not one
     */
    static WorkDistribution parse(String text) {
        String[] parts = text.trim().toLowerCase(Locale.ROOT).split(":", -1);
        String usage =
                "'"
                        + text
                        + "' is not a work distribution; allowed: constant:W, uniform:LOW:HIGH"
                        + " (0 < LOW <= HIGH) or lognormal:MEAN:SIGMA (0 <= SIGMA <= 4), numbers"
                        + " in (0, 1e9]";
        try {
            if (parts[0].equals("constant") && parts.length == 2) {
                return new Constant(Double.parseDouble(parts[1]));
            } else if (parts[0].equals("uniform") && parts.length == 3) {
                return new Uniform(Double.parseDouble(parts[1]), Double.parseDouble(parts[2]));
            } else if (parts[0].equals("lognormal") && parts.length == 3) {
                return new LogNormal(Double.parseDouble(parts[1]), Double.parseDouble(parts[2]));
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(usage, e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + text + "': " + e.getMessage(), e);
        }
        throw new IllegalArgumentException(usage);
    }

    private static double checkWork(double value, String what) {
        if (!(value > 0 && value <= MAX_WORK)) {
            throw new IllegalArgumentException(what + " must be in (0, 1e9], was " + value);
        }
        return value;
    }

    /** Every task has the same work. */
    record Constant(double work) implements WorkDistribution {
        /** Checks {@code 0 < work <= 1e9}. */
        public Constant {
            checkWork(work, "the work");
        }

        @Override
        public double mean() {
            return work;
        }

        @Override
        public double sample(SplittableRandom random) {
            return work;
        }

        @Override
        public WorkDistribution scaled(double factor) {
            return new Constant(work * factor);
        }

        @Override
        public String toString() {
            return "constant:" + work;
        }
    }

    /** Work uniform in {@code [low, high]}. */
    record Uniform(double low, double high) implements WorkDistribution {
        /** Checks {@code 0 < low <= high <= 1e9}. */
        public Uniform {
            checkWork(low, "the low end");
            checkWork(high, "the high end");
            if (low > high) {
                throw new IllegalArgumentException(
                        "the low end " + low + " is above the high end " + high);
            }
        }

        @Override
        public double mean() {
            return (low + high) / 2;
        }

        @Override
        public double sample(SplittableRandom random) {
            return low == high ? low : low + (high - low) * random.nextDouble();
        }

        @Override
        public WorkDistribution scaled(double factor) {
            return new Uniform(low * factor, high * factor);
        }

        @Override
        public String toString() {
            return "uniform:" + low + ":" + high;
        }
    }

    /**
     * Log-normal work with mean {@code mean}: {@code exp(mu + sigma * N(0, 1))}, {@code mu =
     * ln(mean) - sigma^2 / 2}. A sample is capped at 1e9.
     */
    record LogNormal(double mean, double sigma) implements WorkDistribution {
        /** Checks {@code 0 < mean <= 1e9} and {@code 0 <= sigma <= 4}. */
        public LogNormal {
            checkWork(mean, "the mean");
            if (!(sigma >= 0 && sigma <= 4)) {
                throw new IllegalArgumentException("sigma must be in [0, 4], was " + sigma);
            }
        }

        @Override
        public double sample(SplittableRandom random) {
            double mu = Math.log(mean) - sigma * sigma / 2;
            return Math.min(MAX_WORK, Math.exp(mu + sigma * random.nextGaussian()));
        }

        @Override
        public WorkDistribution scaled(double factor) {
            return new LogNormal(mean * factor, sigma);
        }

        @Override
        public String toString() {
            return "lognormal:" + mean + ":" + sigma;
        }
    }
}
