package io.railyard.benchmarks.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every command on bad input (ARCHITECTURE.md, reliability row 36): a usage error is exit code 2,
 * one line on stderr naming the option, the value and what is allowed, nothing on stdout and no
 * file left; a failure of the run is exit code 1 and one line, after what was measured is printed.
 * Each case is cheap because every check runs before any measuring.
 */
class CliBadInputTest {
    @TempDir Path dir;

    private Path aFile;

    @BeforeEach
    void files() throws IOException {
        aFile = Files.writeString(dir.resolve("a-file"), "not a directory");
    }

    /** The arguments of one case, with {@code DIR} and {@code FILE} standing for the fixtures. */
    static Stream<Arguments> usageErrors() {
        return Stream.of(
                // memory
                usage(
                        "memory: --running-parallelism must be in 0..20000 (0 alone skips it),"
                                + " was 0,5",
                        "memory",
                        "--running-parallelism",
                        "0,5"),
                usage(
                        "memory: --running-parallelism must be in 0..20000 (0 alone skips it),"
                                + " was 20001",
                        "memory",
                        "--running-parallelism",
                        "20001"),
                // report
                usage(
                        "report: --json DIR: cannot write there: it is a directory",
                        "report",
                        "--json",
                        "DIR"),
                usage(
                        "report: --json FILE/x.json: cannot write there: ",
                        "report",
                        "--json",
                        "FILE/x.json"),
                usage(
                        "report: --chart DIR: cannot write there: it is a directory",
                        "report",
                        "--chart",
                        "DIR"),
                usage(
                        "report: --chart FILE/c: cannot write there: ",
                        "report",
                        "--chart",
                        "FILE/c"),
                usage(
                        "report: --shuffle-dir DIR/missing: no such directory",
                        "report",
                        "--shuffle-dir",
                        "DIR/missing"),
                usage(
                        "report: --shuffle-dir FILE: not a directory",
                        "report",
                        "--shuffle-dir",
                        "FILE"),
                usage(
                        "report: --shuffle-parallelism must be in [1, 16777216], was -1",
                        "report",
                        "--shuffle-parallelism",
                        "-1"),
                usage(
                        "report: --shuffle-mib must be in [1, 1048576], was 0",
                        "report",
                        "--shuffle-mib",
                        "0"),
                usage(
                        "report: --shuffle-memory-mib 1 is too small for --shuffle-parallelism 1000: the sort-based partition needs",
                        "report",
                        "--shuffle-memory-mib",
                        "1"),
                usage(
                        "report: --shuffle-memory-mib 1000000 exceeds the direct memory this JVM may allocate",
                        "report",
                        "--shuffle-memory-mib",
                        "1000000"),
                usage(
                        "report: --parallelism must be in [1, 16777216], was 0",
                        "report",
                        "--parallelism",
                        "0"),
                usage(
                        "report: Unknown options: '--parallelizm', '5'; did you mean --parallelism?",
                        "report",
                        "--parallelizm",
                        "5"),
                // run: the shuffle settings it takes for jobs of many tasks
                usage(
                        "run: --page-kib must be in [1, 16384], was 0",
                        "run",
                        "--job",
                        "FILE",
                        "--page-kib",
                        "0"),
                usage(
                        "run: --gate-pages must be in [1, 65536], was 0",
                        "run",
                        "--job",
                        "FILE",
                        "--gate-pages",
                        "0"),
                usage(
                        "run: --threads must be in [1, 1024], was 0",
                        "run",
                        "--job",
                        "FILE",
                        "--threads",
                        "0"),
                usage(
                        "run: --threads must be in [1, 1024], was 5000",
                        "run",
                        "--job",
                        "FILE",
                        "--threads",
                        "5000"),

                // shuffle
                usage(
                        "shuffle: --record-bytes must be in [1, 1048576], was 0",
                        "shuffle",
                        "--record-bytes",
                        "0"),
                usage(
                        "shuffle: --record-bytes must be in [1, 1048576], was 2000000",
                        "shuffle",
                        "--record-bytes",
                        "2000000"),
                usage("shuffle: --slots must be in [1, 256], was 0", "shuffle", "--slots", "0"),
                usage(
                        "shuffle: --slots must be in [1, 256], was 1000",
                        "shuffle",
                        "--slots",
                        "1000"),
                usage(
                        "shuffle: --producer-mb-s must be in [0, 1000000], was -5",
                        "shuffle",
                        "--producer-mb-s",
                        "-5"),
                usage(
                        "shuffle: --gate-pages must be in [1, 1048576], was 0",
                        "shuffle",
                        "--gate-pages",
                        "0"),
                usage(
                        "shuffle: --bytes-mib must be in [1, 1048576], was 0",
                        "shuffle",
                        "--bytes-mib",
                        "0"),
                usage(
                        "shuffle: --memory-mib 1 is too small for --parallelism 1: the sort-based partition needs",
                        "shuffle",
                        "--memory-mib",
                        "1"),
                usage(
                        "needs 19232 KiB of network memory, has 4 MiB: 8 tasks at once, each a sort writer of 73 pages or an input gate of 64 pages of 32 KiB, plus 17 pages for the IO scheduler; raise --memory-mib to at least 19, or lower --slots or --gate-pages",
                        "shuffle",
                        "--memory-mib",
                        "4",
                        "--parallelism",
                        "100"),
                usage(
                        "shuffle: --memory-mib 100000 exceeds the direct memory this JVM may allocate",
                        "shuffle",
                        "--memory-mib",
                        "100000"),
                usage(
                        "shuffle: --parallelism must be in [1, 16777216], was 0",
                        "shuffle",
                        "--parallelism",
                        "2,0",
                        "--dir",
                        "DIR"),
                usage(
                        "shuffle: --dir DIR/missing: no such directory; create it or choose another",
                        "shuffle",
                        "--dir",
                        "DIR/missing"),
                usage("shuffle: --dir FILE: not a directory", "shuffle", "--dir", "FILE"),
                usage(
                        "shuffle: --json DIR: cannot write there: it is a directory",
                        "shuffle",
                        "--json",
                        "DIR",
                        "--dir",
                        "DIR"),
                usage(
                        "shuffle: --mode must be one of sort, hash, hybrid-full, hybrid-selective,"
                                + " was 'hybrid'",
                        "shuffle",
                        "--mode",
                        "sort,hybrid"),
                usage(
                        "shuffle: --consumers must be one of early, late, waves, was 'eager'",
                        "shuffle",
                        "--consumers",
                        "eager"),
                usage(
                        "shuffle: Invalid value for option '--compression': expected one of [NONE, LZ4]",
                        "shuffle",
                        "--compression",
                        "zstd"),
                usage(
                        "shuffle: Invalid value for option '--with-flink': 'yes' is not a boolean",
                        "shuffle",
                        "--with-flink=yes"),
                // the others
                usage(
                        "memory: --parallelism must be in [1, 16777216], was 0",
                        "memory",
                        "--parallelism",
                        "0"),
                usage(
                        "memory: --json DIR: cannot write there: it is a directory",
                        "memory",
                        "--json",
                        "DIR"),
                usage(
                        "heap-probe: --parallelism must be in [1, 16777216], was -5",
                        "heap-probe",
                        "--parallelism",
                        "-5"),
                usage("inspect: Missing required option: '--job", "inspect"),
                usage(
                        "benchmarks.jar: unknown command 'reprot'; did you mean 'report'? (commands: report, shuffle",
                        "reprot",
                        "--parallelism",
                        "5"),
                usage(
                        "benchmarks.jar: unknown command 'shufle'; did you mean 'shuffle'?",
                        "shufle"),
                usage("benchmarks.jar: a command is needed: report, shuffle, inspect"));
    }

    private static Arguments usage(String message, String... args) {
        return Arguments.of(message, List.of(args));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("usageErrors")
    void badInput_isOneUsageLine_andLeavesNoFile(String message, List<String> args)
            throws IOException {
        CliRun run = CliRun.of(resolve(args));

        run.isUsageError();
        assertThat(run.err()).contains(resolve(message));
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).containsExactly(aFile);
        }
    }

    @Test
    void unwritableDirectories_areUsageErrors() {
        Path procSelf = Path.of("/proc/self");
        assumeTrue(Files.isDirectory(procSelf), "needs Linux /proc (no file can be created there)");

        assertThat(CliRun.of("shuffle", "--dir", "/proc/self").isUsageError().err())
                .startsWith("shuffle: --dir /proc/self: cannot create files there (");
        assertThat(CliRun.of("report", "--json", "/proc/self/r.json").isUsageError().err())
                .startsWith("report: --json /proc/self/r.json: cannot write there: cannot create");
    }

    @Test
    void chartWithoutSuffix_writesPng_andSaysWhere() {
        Path chart = dir.resolve("out");

        String out =
                CliRun.of(
                                "report",
                                "--parallelism",
                                "10",
                                "--shuffle-parallelism",
                                "0",
                                "--running-parallelism",
                                "0",
                                "--no-progress",
                                "--chart",
                                chart.toString())
                        .succeeded()
                        .out();

        assertThat(out).contains("chart written to " + chart + ".png");
        assertThat(dir.resolve("out.png")).isRegularFile();
        assertThat(chart).doesNotExist();
    }

    @Test
    void diskFullWhileMeasuringTheLimit_isOneFailureLine_afterTheTable() throws IOException {
        try (FileSystem small =
                Jimfs.newFileSystem(Configuration.unix().toBuilder().setMaxSize(1 << 20).build())) {
            Files.createDirectories(small.getPath("/small"));

            CliRun run =
                    CliRun.in(
                            small,
                            "shuffle",
                            "--parallelism",
                            "2,3",
                            "--bytes-mib",
                            "4",
                            "--dir",
                            "/small");

            run.isFailure();
            assertThat(run.err())
                    .startsWith("shuffle: P = 2: sequential limit: /small/railyard-shuffle-")
                    .contains("out of disk space after")
                    .contains("(the files of the run were deleted)");
            assertThat(run.out()).contains("limit").contains("failed: sequential limit");
            assertThat(run.out()).as("stops at the first failed run").doesNotContain("\n3 ");
            try (Stream<Path> left = Files.list(small.getPath("/small"))) {
                assertThat(left).isEmpty();
            }
        }
    }

    @Test
    void diskFullInTheReportsShuffleSection_isOneFailureLine_afterTheReport() throws IOException {
        try (FileSystem small =
                Jimfs.newFileSystem(Configuration.unix().toBuilder().setMaxSize(1 << 20).build())) {
            Files.createDirectories(small.getPath("/small"));

            CliRun run =
                    CliRun.in(
                            small,
                            "report",
                            "--parallelism",
                            "10",
                            "--no-progress",
                            "--running-parallelism",
                            "0",
                            "--shuffle-parallelism",
                            "2",
                            "--shuffle-mib",
                            "4",
                            "--shuffle-dir",
                            "/small");

            run.isFailure();
            assertThat(run.err())
                    .startsWith("report: the shuffle section failed: sequential limit: /small/")
                    .contains("the rest of the report stands");
            assertThat(run.out()).contains("build topology + groups").contains("shuffle: P = 2");
            try (Stream<Path> left = Files.list(small.getPath("/small"))) {
                assertThat(left).isEmpty();
            }
        }
    }

    private String[] resolve(List<String> args) {
        List<String> resolved = new ArrayList<>(args.size());
        for (String arg : args) {
            resolved.add(resolve(arg));
        }
        return resolved.toArray(new String[0]);
    }

    private String resolve(String text) {
        return text.replace("FILE", aFile.toString()).replace("DIR", dir.toString());
    }
}
