package io.railyard.benchmarks.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.railyard.benchmarks.inspect.JobFile;
import io.railyard.benchmarks.inspect.JobFileSource;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.local.ForwardingJob;
import io.railyard.local.JobResult;
import io.railyard.local.LocalEngine;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.topology.JobGraph;
import io.railyard.transport.TransportOptions;
import io.railyard.transport.TransportTls;
import io.railyard.worker.Tally;
import io.railyard.worker.TaskSlots;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code run}: runs a job graph file (the format of {@code inspect}) on the local execution engine
 * — workers with slots and shuffle layers in this process, scheduled by the JobManager core — with
 * the built-in forwarding logic ({@link ForwardingJob}): sources generate records, every task
 * forwards what it reads, sinks count. Each source subtask generates {@code --records} records,
 * unless the file gives its vertex {@code records_per_subtask} or {@code skew} ({@link
 * JobFileSource}: hot subtasks generating a factor more).
 *
 * <p>While the job runs, a progress line on stderr (tasks finished, records committed, restarts,
 * slots busy) is redrawn {@value ProgressBar#REDRAWS_PER_SECOND} times a second at most, when
 * stderr is a terminal or with {@code --progress always}, and erased at the end; stdout gets only
 * the summary. The summary: state, wall time, records at the sinks against the expected, records/s,
 * restarts, the bytes the shuffle layers wrote to disk, read from disk and read from memory, and
 * the most slots busy at once. With {@code --json}, a document with {@code records_in} / {@code
 * checksum_in} (what the sinks must receive: every source record once per path to a sink) beside
 * {@code records_out} / {@code checksum_out} (what they committed), equal when delivery was exact,
 * {@code leaked_pages} / {@code leaked_files}, 0 after every run, and the summary's figures. A job
 * that ends FAILED exits 1 with its cause in one line (why the job failed and the root cause, no
 * stack trace); bad options and job files exit 2.
 */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = {
            "Runs a job graph file on the local execution engine (N workers x S slots in this"
                    + " process): each source subtask generates --records records (or what the"
                    + " file says), every task forwards"
                    + " what it reads (keyed exchanges on all-to-all edges), sinks count; checks"
                    + " that the sinks received every record exactly once and that no page, file"
                    + " or partition is left.",
            "File: as for 'inspect'; a source vertex (one without input edges) may also have"
                    + " \"records_per_subtask\": N (in place of --records) and \"skew\":"
                    + " {\"hot_subtasks\": K, \"factor\": F} (its subtasks 0..K-1 generate F"
                    + " times the records, F a number in [1, 1000]).",
            "Prints a summary: wall time, records/s, restarts, bytes written to disk, read from"
                    + " disk and read from memory, the most slots busy at once; and a progress"
                    + " line on stderr while the job runs."
        })
final class RunCommand implements Callable<Integer> {
    @Spec
    @SuppressWarnings("NullAway.Init") // injected by picocli before call()
    private CommandSpec spec;

    @Mixin private OutputOptions output = new OutputOptions();

    @Mixin private JobOptions job = new JobOptions();

    @Option(
            names = "--workers",
            paramLabel = "N",
            description = "workers, 1..256 (default ${DEFAULT-VALUE})")
    private int workers = 2;

    /**
     * Slots of all workers together at most. A slot costs no thread (tasks are cooperative, on
     * {@code --threads} threads per worker), but a task deployed in it its heap: a few KiB.
     */
    static final int MAX_SLOTS = 1 << 21;

    @Option(
            names = "--slots",
            paramLabel = "S",
            description =
                    "slots per worker, 1..2097152, at most 2097152 over all workers: tasks that run"
                            + " at once; a slot costs no thread (default ${DEFAULT-VALUE})")
    private int slots = 8;

    @Option(
            names = "--threads",
            paramLabel = "T",
            description =
                    "threads each worker runs its tasks on, 1..1024 (default: as many as the"
                            + " machine has cores, at most the slots)")
    private @Nullable Integer threads; // null: the default

    @Option(
            names = "--page-kib",
            paramLabel = "KIB",
            description =
                    "network page size in KiB, 1..16384 (default ${DEFAULT-VALUE}): smaller pages"
                            + " give many tasks a page each")
    private int pageKib = 32;

    @Option(
            names = "--gate-pages",
            paramLabel = "N",
            description =
                    "pages each input gate is guaranteed for what it reads from disk, 1..65536"
                            + " (default ${DEFAULT-VALUE}); memory reads take none")
    private int gatePages = ShuffleOptions.DEFAULT.gatePages();

    @Option(
            names = "--sort-buffer-pages",
            paramLabel = "N",
            description =
                    "pages of each sort-based and hybrid writer's sort buffer, 1..65536 (default"
                            + " ${DEFAULT-VALUE})")
    private int sortBufferPages = ShuffleOptions.DEFAULT.sortBufferPages();

    @Option(
            names = "--records",
            paramLabel = "N",
            description =
                    "records per source subtask where the job file gives none, 0..1000000000"
                            + " (default ${DEFAULT-VALUE})")
    private long records = 10_000;

    @Option(
            names = "--record-bytes",
            paramLabel = "BYTES",
            description = "bytes per record, 8..1048576 (default ${DEFAULT-VALUE})")
    private int recordBytes = 64;

    @Option(
            names = "--shuffle",
            paramLabel = "sort|hash",
            description = "how BLOCKING results are written (default ${DEFAULT-VALUE})")
    private String shuffle = "sort";

    @Option(
            names = "--fail-rate",
            paramLabel = "R",
            description =
                    "each task attempt fails with probability R, 0..1, at a random record"
                            + " (default ${DEFAULT-VALUE})")
    private double failRate;

    @Option(
            names = "--max-restarts",
            paramLabel = "N",
            description = "restarts before the job fails, 0..1000000 (default ${DEFAULT-VALUE})")
    private int maxRestarts = 100;

    @Option(
            names = "--seed",
            paramLabel = "X",
            description = "seed of the records and the failures (default ${DEFAULT-VALUE})")
    private long seed = 1;

    @Option(
            names = "--memory-mib",
            paramLabel = "MIB",
            description = "network memory per worker in MiB, 1..65536 (default ${DEFAULT-VALUE})")
    private int memoryMib = 64;

    @Option(
            names = "--timeout-s",
            paramLabel = "SECONDS",
            description = "give up after this long, 1..86400 (default ${DEFAULT-VALUE})")
    private int timeoutSeconds = 600;

    @Option(
            names = "--dir",
            paramLabel = "DIR",
            description = "an existing directory for the files (default: java.io.tmpdir)")
    private Path directory = Path.of(System.getProperty("java.io.tmpdir"));

    @Option(
            names = "--transport",
            paramLabel = "in-process|tcp",
            description =
                    "how tasks read their inputs: in-process, through the worker's own IO thread;"
                            + " or tcp, every read — a worker's own partitions too — over TCP from"
                            + " the data server of the worker that holds it (default"
                            + " ${DEFAULT-VALUE})")
    private String transport = "in-process";

    @Option(
            names = "--bind-address",
            paramLabel = "ADDRESS",
            description =
                    "with --transport tcp: the address every worker's data server listens on, each"
                            + " on a free port of its own (default ${DEFAULT-VALUE})")
    private String bindAddress = "127.0.0.1";

    @Option(
            names = "--tls-keystore",
            paramLabel = "FILE",
            description =
                    "with --transport tcp: every connection over mutual TLS with the key pair and"
                            + " trusted certificates of this PKCS#12 key store, its password in the"
                            + " environment variable RAILYARD_TLS_PASSWORD (default: plain TCP)")
    private @Nullable Path tlsKeyStore;

    @Option(
            names = "--progress",
            paramLabel = "auto|always|never",
            description =
                    "a progress line on stderr while the job runs: when stderr is a terminal"
                            + " (auto), always, or never (default ${DEFAULT-VALUE})")
    private String progress = "auto";

    @Override
    public Integer call() throws Exception {
        checkNumbers();
        PartitionKind blocking = blocking(shuffle);
        boolean tcp = OptionChecks.transport(spec, "--transport", transport);
        TransportTls tls = OptionChecks.tls(spec, tlsKeyStore, tcp);
        TransportOptions network =
                tcp ? TransportOptions.DEFAULT.withAddress(bindAddress, 0).withTls(tls) : null;
        boolean showProgress = showProgress(progress);
        ShuffleChecks.checkDirectory(spec, "--dir", directory);
        OutputFile json = output.check(spec);
        JobFile.Contents contents = job.read(spec).contents();
        JobGraph graph = contents.graph();
        try {
            LocalEngine.checkRunnable(graph);
        } catch (IllegalArgumentException e) {
            throw OptionChecks.usage(spec, "--job " + job.path() + ": " + e.getMessage());
        }
        ForwardingJob logic = logic(contents);
        JobResult result = runJob(graph, logic, blocking, network, showProgress);
        Tally expected = expectedAtSinks(graph, logic);
        long generated = generated(graph, logic);
        int slotsTotal = workers * slots;
        PrintWriter out = spec.commandLine().getOut();
        printSummary(out, result, expected, generated, slotsTotal);
        if (network != null) {
            out.printf(
                    Locale.ROOT,
                    "transport: %s on %s, %s sent by the workers' data servers (%.0f%% without a"
                            + " copy, %.0f%% as file regions)%n",
                    network.tls() == null ? "tcp" : "tcp with TLS",
                    bindAddress,
                    ProgressBar.bytes(networkBytes[0]),
                    networkBytes[0] == 0 ? 0.0 : 100.0 * networkBytes[1] / networkBytes[0],
                    networkBytes[0] == 0 ? 0.0 : 100.0 * networkBytes[2] / networkBytes[0]);
            out.flush();
        }
        if (json != null) {
            ObjectNode document = document(result, expected, generated, slotsTotal);
            document.put(
                    "transport",
                    network == null ? "in-process" : network.tls() == null ? "tcp" : "tcp+tls");
            document.put("network_bytes_sent", networkBytes[0]);
            document.put("network_bytes_sent_from_files", networkBytes[2]);
            json.writeJson(document, out);
        }
        if (result.outcome() instanceof JobResult.Failed failed) {
            throw new CommandFailure(
                    "the job failed: " + OneLine.ofFailure(failed.cause()), failed.cause());
        }
        return ExitCode.OK;
    }

    /** The forwarding logic of the job: the file's source records, --records, the fail rate. */
    private ForwardingJob logic(JobFile.Contents contents) {
        ForwardingJob logic = ForwardingJob.of(contents.graph(), records, recordBytes, seed);
        for (JobFileSource source : contents.sources()) {
            logic = logic.withSource(source.vertex(), sourceRecords(source, records));
        }
        return failRate > 0 ? logic.failingAtRate(failRate) : logic;
    }

    /** Checks the numeric options: each in its range, and the slots of all workers together. */
    private void checkNumbers() {
        OptionChecks.range(spec, "--workers", workers, 1, 256);
        OptionChecks.range(spec, "--slots", slots, 1, MAX_SLOTS);
        if ((long) workers * slots > MAX_SLOTS) {
            throw OptionChecks.usage(
                    spec,
                    String.format(
                            Locale.ROOT,
                            "--workers × --slots must be at most %d (each deployed task takes"
                                    + " heap), was %d × %d = %d",
                            MAX_SLOTS,
                            workers,
                            slots,
                            (long) workers * slots));
        }
        if (threads != null) {
            OptionChecks.range(spec, "--threads", threads, 1, 1024);
        }
        OptionChecks.range(spec, "--page-kib", pageKib, 1, 16 << 10);
        OptionChecks.range(spec, "--gate-pages", gatePages, 1, 1 << 16);
        OptionChecks.range(spec, "--sort-buffer-pages", sortBufferPages, 1, 1 << 16);
        OptionChecks.range(spec, "--records", records, 0, JobFile.MAX_RECORDS_PER_SUBTASK);
        OptionChecks.range(spec, "--record-bytes", recordBytes, 8, 1 << 20);
        OptionChecks.range(spec, "--max-restarts", maxRestarts, 0, 1_000_000);
        OptionChecks.range(spec, "--memory-mib", memoryMib, 1, 65_536);
        OptionChecks.range(spec, "--timeout-s", timeoutSeconds, 1, 86_400);
        if (!(failRate >= 0 && failRate <= 1)) {
            throw OptionChecks.usage(spec, "--fail-rate must be in [0, 1], was " + failRate);
        }
    }

    /**
     * Runs the job on a fresh engine (its workers reading over TCP with {@code network}), with the
     * progress line if {@code showProgress}.
     */
    private JobResult runJob(
            JobGraph graph,
            ForwardingJob logic,
            PartitionKind blocking,
            @Nullable TransportOptions network,
            boolean showProgress)
            throws Exception {
        ShuffleOptions options = shuffleOptions();
        LocalEngine created;
        try {
            created =
                    new LocalEngine(
                            directory,
                            workers,
                            slots,
                            threads == null ? TaskSlots.defaultThreads(slots) : threads,
                            options,
                            blocking,
                            network);
        } catch (IOException e) {
            if (network == null) {
                throw e;
            }
            throw OptionChecks.usage(spec, "--bind-address " + bindAddress + ": " + e.getMessage());
        }
        try (LocalEngine engine = created) {
            ProgressBar bar = ProgressBar.start(engine, spec.commandLine().getErr(), showProgress);
            try {
                return runOn(engine, graph, logic);
            } finally {
                bar.close();
                networkBytes = engine.networkBytes();
            }
        }
    }

    /**
     * The shuffle settings of the options: the memory, page size, gate and sort-buffer pages.
     *
     * @throws picocli.CommandLine.ParameterException naming the options if they do not go together
     *     (a memory that is not a whole number of pages, a sort buffer over its limit)
     */
    private ShuffleOptions shuffleOptions() {
        try {
            return ShuffleOptions.builder()
                    .pageSizeBytes(pageKib << 10)
                    .totalMemoryBytes((long) memoryMib << 20)
                    .gatePages(gatePages)
                    .sortBufferPages(sortBufferPages)
                    .build();
        } catch (IllegalArgumentException e) {
            throw OptionChecks.usage(
                    spec,
                    "--memory-mib, --page-kib, --gate-pages and --sort-buffer-pages: "
                            + e.getMessage());
        }
    }

    /** The bytes the data servers sent, and of them without a copy (zeros in-process). */
    private long[] networkBytes = {0, 0, 0};

    private JobResult runOn(LocalEngine engine, JobGraph graph, ForwardingJob logic)
            throws Exception {
        try {
            return engine.run(
                    graph,
                    logic,
                    maxRestarts == 0
                            ? RestartBackoffPolicy.noRestart()
                            : RestartBackoffPolicy.fixedDelay(maxRestarts, Duration.ZERO),
                    Duration.ofSeconds(timeoutSeconds));
        } catch (IllegalArgumentException e) { // refused before anything ran: it can never fit
            throw OptionChecks.usage(
                    spec,
                    "--job "
                            + job.path()
                            + " does not fit --memory-mib "
                            + memoryMib
                            + ": "
                            + e.getMessage());
        }
    }

    private PartitionKind blocking(String value) {
        return switch (value) {
            case "sort" -> PartitionKind.SORT;
            case "hash" -> PartitionKind.HASH;
            default ->
                    throw OptionChecks.usage(
                            spec, "--shuffle must be 'sort' or 'hash', was '" + value + "'");
        };
    }

    /**
     * Whether to draw the progress line: {@code auto} when stderr is a terminal.
     *
     * @throws picocli.CommandLine.ParameterException naming {@code --progress} for another value
     */
    private boolean showProgress(String value) {
        return switch (value) {
            case "auto" -> ProgressBar.stderrIsTerminal();
            case "always" -> true;
            case "never" -> false;
            default ->
                    throw OptionChecks.usage(
                            spec,
                            "--progress must be 'auto', 'always' or 'never', was '" + value + "'");
        };
    }

    /**
     * The records of {@code source}'s subtasks: the file's per-subtask count or {@code
     * defaultRecords}, its hot subtasks at that count times the factor.
     */
    static ForwardingJob.SourceRecords sourceRecords(JobFileSource source, long defaultRecords) {
        long perSubtask = source.perSubtask(defaultRecords);
        JobFileSource.Skew skew = source.skew();
        return skew == null
                ? ForwardingJob.SourceRecords.uniform(perSubtask)
                : new ForwardingJob.SourceRecords(
                        perSubtask, skew.hotSubtasks(), skew.hotRecords(perSubtask));
    }

    /** What the sources generate together. O(tasks). */
    private static long generated(JobGraph graph, ForwardingJob logic) {
        long total = 0;
        for (int v = 0; v < graph.numJobVertices(); v++) {
            for (int s = 0; s < graph.parallelism(v); s++) {
                total += logic.recordsOf(v, s);
            }
        }
        return total;
    }

    /** What the sink vertices must receive together. */
    private static Tally expectedAtSinks(JobGraph graph, ForwardingJob logic) {
        Tally[] received = logic.expectedReceived();
        Tally total = Tally.ZERO;
        for (int v = 0; v < graph.numJobVertices(); v++) {
            if (graph.numProducedDataSets(v) == 0) {
                total = total.plus(received[v]);
            }
        }
        return total;
    }

    /** {@code FINISHED} or {@code FAILED}: the summary's and the document's {@code state}. */
    private static String stateOf(JobResult result) {
        return result.outcome() instanceof JobResult.Failed ? "FAILED" : "FINISHED";
    }

    private static void printSummary(
            PrintWriter out, JobResult result, Tally expected, long generated, int slotsTotal) {
        Tally got = result.committedTotal();
        JobResult.ShuffleBytes bytes = result.shuffle();
        out.printf(
                Locale.ROOT,
                "%s in %.0f ms: %,d of %,d records at the sinks (%s), %,.0f records/s;"
                        + " %d restarts, %,d task attempts deployed; left behind: %d pages,"
                        + " %d files%n",
                stateOf(result),
                result.stats().wallNanos() / 1e6,
                got.records(),
                expected.records(),
                got.equals(expected) ? "exact" : "NOT exact",
                result.recordsPerSecond(),
                result.stats().restarts(),
                result.stats().tasksDeployed(),
                result.leaks().pages(),
                result.leaks().files());
        out.printf(
                Locale.ROOT,
                "%,d records generated by the sources; shuffle: %s written to disk, %s read from"
                        + " disk, %s read from memory; at most %d of %d slots busy at once%n",
                generated,
                ProgressBar.bytes(bytes.writtenToDisk()),
                ProgressBar.bytes(bytes.readFromDisk()),
                ProgressBar.bytes(bytes.readFromMemory()),
                result.stats().maxSlotsBusy(),
                slotsTotal);
        out.flush();
    }

    private static ObjectNode document(
            JobResult result, Tally expected, long generated, int slotsTotal) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        Tally got = result.committedTotal();
        root.put("state", stateOf(result));
        if (result.outcome() instanceof JobResult.Failed failed) {
            root.put("cause", OneLine.ofFailure(failed.cause()));
        }
        root.put("records_in", expected.records());
        root.put("records_out", got.records());
        root.put("checksum_in", Long.toHexString(expected.checksum()));
        root.put("checksum_out", Long.toHexString(got.checksum()));
        root.put("restarts", result.stats().restarts());
        root.put("tasks_deployed", result.stats().tasksDeployed());
        root.put("wall_ms", result.stats().wallNanos() / 1e6);
        root.put("leaked_pages", result.leaks().pages());
        root.put("leaked_files", result.leaks().files());
        root.put("partitions_left", result.leaks().partitions());
        root.put("tasks_not_stopped", result.leaks().tasksNotStopped().size());
        root.put("records_generated", generated);
        root.put("records_per_s", result.recordsPerSecond());
        root.put("bytes_written_to_disk", result.shuffle().writtenToDisk());
        root.put("bytes_read_from_disk", result.shuffle().readFromDisk());
        root.put("bytes_read_from_memory", result.shuffle().readFromMemory());
        root.put("max_slots_busy", result.stats().maxSlotsBusy());
        root.put("slots", slotsTotal);
        return root;
    }

    /**
     * The progress line on stderr: a daemon thread polls {@link LocalEngine#progress()} {@value
     * #REDRAWS_PER_SECOND} times a second and redraws the line in place ({@code \r}) when it
     * changed; {@link #close} stops it and erases the line. Writes nothing but to its own writer,
     * and nothing at all when disabled.
     */
    static final class ProgressBar implements AutoCloseable {
        /** Redraws per second, at most. */
        static final int REDRAWS_PER_SECOND = 4;

        private static final int WIDTH = 24;
        private final LocalEngine engine;
        private final PrintWriter err;
        private final @Nullable ScheduledExecutorService timer;
        private volatile String shown = ""; // the timer's thread, then close() after it stopped

        private ProgressBar(LocalEngine engine, PrintWriter err, boolean enabled) {
            this.engine = engine;
            this.err = err;
            this.timer =
                    enabled
                            ? Executors.newSingleThreadScheduledExecutor(
                                    task -> {
                                        Thread thread = new Thread(task, "railyard-progress");
                                        thread.setDaemon(true);
                                        return thread;
                                    })
                            : null;
        }

        /**
         * A bar drawing {@code engine}'s job on {@code err} from now until {@link #close}, or, if
         * not {@code enabled}, one that does nothing.
         */
        static ProgressBar start(LocalEngine engine, PrintWriter err, boolean enabled) {
            ProgressBar bar = new ProgressBar(engine, err, enabled);
            if (bar.timer != null) {
                long period = 1000 / REDRAWS_PER_SECOND;
                // Failures of draw() are its own (none expected); the future has nothing to add.
                var unused =
                        bar.timer.scheduleAtFixedRate(
                                bar::draw, period, period, TimeUnit.MILLISECONDS);
            }
            return bar;
        }

        private void draw() {
            LocalEngine.Progress now = engine.progress();
            if (now == null) {
                return;
            }
            String line = line(now, engine.numWorkers() * engine.slotsPerWorker());
            if (!line.equals(shown)) {
                // Pad over the end of a longer line drawn before.
                err.print("\r" + line + " ".repeat(Math.max(0, shown.length() - line.length())));
                err.flush();
                shown = line;
            }
        }

        /**
         * The line for {@code progress}: a bar of finished tasks, then tasks, records committed,
         * restarts, busy slots of {@code slots} and seconds since the start, e.g. {@code [######
         * ...] 6/24 tasks, 1,200,000 records committed, 0 restarts, 8/8 slots busy, 3.1 s}.
         */
        static String line(LocalEngine.Progress progress, int slots) {
            int filled =
                    progress.tasks() == 0
                            ? WIDTH
                            : (int) ((long) WIDTH * progress.tasksFinished() / progress.tasks());
            return String.format(
                    Locale.ROOT,
                    "[%s%s] %d/%d tasks, %,d records committed, %d restarts, %d/%d slots busy,"
                            + " %.1f s",
                    "#".repeat(filled),
                    " ".repeat(WIDTH - filled),
                    progress.tasksFinished(),
                    progress.tasks(),
                    progress.recordsCommitted(),
                    progress.restarts(),
                    progress.slotsBusy(),
                    slots,
                    progress.elapsedNanos() / 1e9);
        }

        /** Stops redrawing and erases the line drawn, if any. Idempotent. */
        @Override
        public void close() {
            ScheduledExecutorService running = timer;
            if (running == null) {
                return;
            }
            running.shutdownNow();
            try {
                running.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (!shown.isEmpty()) {
                err.print("\r" + " ".repeat(shown.length()) + "\r");
                err.flush();
                shown = "";
            }
        }

        /**
         * Whether this process's stderr is a terminal: where file descriptor 2 leads, a {@code
         * /dev/pts} or {@code /dev/tty} device. False where {@code /proc/self/fd} cannot tell (not
         * Linux): Java 17 cannot ask about stderr alone ({@code System.console()} needs stdin and
         * stdout too), so there the line needs {@code --progress always}.
         */
        static boolean stderrIsTerminal() {
            Path fd = Path.of("/proc/self/fd/2");
            try {
                String target = Files.readSymbolicLink(fd).toString();
                return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
            } catch (IOException | UnsupportedOperationException | SecurityException e) {
                return false;
            }
        }

        /** {@code bytes} for people: B, KiB, MiB, GiB or TiB, one decimal above bytes. */
        static String bytes(long bytes) {
            if (bytes < 1024) {
                return bytes + " B";
            }
            String[] units = {"KiB", "MiB", "GiB", "TiB"};
            double value = bytes / 1024.0;
            int unit = 0;
            while (value >= 1024 && unit < units.length - 1) {
                value /= 1024;
                unit++;
            }
            return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
        }
    }
}
