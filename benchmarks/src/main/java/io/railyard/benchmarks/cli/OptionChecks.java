package io.railyard.benchmarks.cli;

import io.railyard.topology.JobGraph;
import io.railyard.transport.TransportTls;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Checks of option values shared by the commands: each failure is a usage error (exit code 2)
 * naming the option as the user typed it, the value and the allowed range. All checks of a command
 * run before it does any work.
 */
final class OptionChecks {
    private OptionChecks() {}

    /** {@code option} (a parallelism) must be in [1, {@link JobGraph#MAX_PARALLELISM}]. */
    static void parallelism(CommandSpec spec, String option, int value) {
        range(spec, option, value, 1, JobGraph.MAX_PARALLELISM);
    }

    /** Every value of the list {@code option} must be a valid parallelism; the list not empty. */
    static void parallelisms(CommandSpec spec, String option, List<Integer> values) {
        if (values.isEmpty()) {
            throw usage(spec, option + " needs at least one value");
        }
        for (int value : values) {
            parallelism(spec, option, value);
        }
    }

    /** {@code option} must be in [{@code min}, {@code max}]. */
    static void range(CommandSpec spec, String option, long value, long min, long max) {
        if (value < min || value > max) {
            throw usage(
                    spec,
                    String.format(
                            Locale.ROOT,
                            "%s must be in [%d, %d], was %d",
                            option,
                            min,
                            max,
                            value));
        }
    }

    /**
     * Checks a list of parallelisms each in {@code 1..max}, or {@code 0} alone (skip).
     *
     * @return false when the list is {@code 0} alone
     * @throws ParameterException naming the option, the values and what is allowed
     */
    static boolean parallelismsOrSkip(
            CommandSpec spec, String option, List<Integer> values, int max) {
        boolean skip = values.equals(List.of(0));
        for (int p : values) {
            if (p < 0 || p > max || (p == 0 && !skip)) {
                throw usage(
                        spec,
                        option
                                + " must be in 0.."
                                + max
                                + " (0 alone skips it), was "
                                + String.join(",", values.stream().map(String::valueOf).toList()));
            }
        }
        return !skip;
    }

    /**
     * {@code option}'s transport: false for {@code in-process}, true for {@code tcp}.
     *
     * @throws ParameterException naming the option, the value and what is allowed
     */
    static boolean transport(CommandSpec spec, String option, String value) {
        return switch (value) {
            case "in-process" -> false;
            case "tcp" -> true;
            default ->
                    throw usage(spec, option + " must be in-process or tcp, was '" + value + "'");
        };
    }

    /** The environment variable holding the password of {@code --tls-keystore}. */
    static final String TLS_PASSWORD_VARIABLE = "RAILYARD_TLS_PASSWORD";

    /**
     * TLS from the key store {@code keyStore} (its password in {@link #TLS_PASSWORD_VARIABLE}), or
     * null without one.
     *
     * @throws ParameterException in one line: TLS without {@code tcp}, no password, or a key store
     *     that cannot be used (naming the file and why)
     */
    static @Nullable TransportTls tls(CommandSpec spec, @Nullable Path keyStore, boolean tcp) {
        if (keyStore == null) {
            return null;
        }
        if (!tcp) {
            throw usage(spec, "--tls-keystore needs --transport tcp");
        }
        String password = System.getenv(TLS_PASSWORD_VARIABLE);
        if (password == null) {
            throw usage(
                    spec,
                    "--tls-keystore "
                            + keyStore
                            + ": set the key store's password in the environment variable "
                            + TLS_PASSWORD_VARIABLE);
        }
        try {
            return TransportTls.fromKeyStore(keyStore, password.toCharArray());
        } catch (IllegalArgumentException e) {
            throw usage(spec, "--tls-keystore: " + e.getMessage());
        }
    }

    /** A usage error of the command {@code spec} with {@code message}. */
    static ParameterException usage(CommandSpec spec, String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
