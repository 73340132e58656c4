package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Locale;

/**
 * The identity of a job: 128 bits, written as 32 lower-case hex digits. Immutable.
 *
 * @param high the upper 64 bits
 * @param low the lower 64 bits
 */
public record JobId(long high, long low) {

    /**
     * Parses 32 lower-case hex digits.
     *
     * @throws IllegalArgumentException if {@code hex} is not exactly 32 characters of [0-9a-f]
     */
    public static JobId parse(String hex) {
        checkArgument(
                hex.length() == 32 && hex.chars().allMatch(JobId::isLowerHex),
                "a job id is 32 lower-case hex digits, was '%s'",
                hex);
        return new JobId(
                Long.parseUnsignedLong(hex.substring(0, 16), 16),
                Long.parseUnsignedLong(hex.substring(16), 16));
    }

    private static boolean isLowerHex(int c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    }

    /** 32 lower-case hex digits; {@link #parse(String)} reads them back. */
    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%016x%016x", high, low);
    }
}
