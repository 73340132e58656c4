/**
 * The command line of {@code benchmarks.jar}: {@link io.railyard.benchmarks.cli.Main} and one
 * picocli command per verb ({@code report}, {@code shuffle}, {@code inspect}, {@code run}, {@code
 * simulate}, {@code memory}, {@code heap-probe}, {@code jmh}), the shared options, and the
 * renderers (tables, JSON, chart).
 *
 * <p>Map: commands check every option and output path before any work ({@code OptionChecks}, {@code
 * ShuffleChecks}, {@code OutputFile}), run procedures from {@code .procedures} (and {@code .flink}
 * for the live comparison), render, and report mistakes and failures as one line ({@code
 * CliErrors}: exit 2 for usage, 1 for failures). Threading: each command runs on the caller's
 * thread; the measurements it calls may use their own.
 */
@NullMarked
package io.railyard.benchmarks.cli;

import org.jspecify.annotations.NullMarked;
