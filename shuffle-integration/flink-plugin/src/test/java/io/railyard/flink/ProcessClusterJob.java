package io.railyard.flink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.flink.api.common.BatchShuffleMode;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The word count {@code scripts/flink-process-cluster.sh} submits to a cluster of separate JVMs: a
 * BLOCKING batch job whose counting task, in its first attempt and halfway through, writes the pid
 * of its TaskManager to the kill file (the script then kills that TaskManager with SIGKILL) and
 * waits to be killed. Each sink subtask writes its counts to a file of its attempt; the result is
 * the last attempt of each subtask, checked against the counts computed here.
 *
 * <p>Usage: {@code ProcessClusterJob REST_PORT OUTPUT_DIR KILL_FILE}; exits 0 if exact, 1 otherwise
 * (printing what differs).
 */
public final class ProcessClusterJob {
    static final long RECORDS = 2_000_000;
    static final int WORDS = 997;

    private ProcessClusterJob() {}

    /** Submits the job to the cluster at {@code localhost:args[0]} and checks its output. */
    public static void main(String[] args) throws Exception {
        int restPort = Integer.parseInt(args[0]);
        Path output = Path.of(args[1]);
        Path killFile = Path.of(args[2]);
        Files.createDirectories(output);
        Configuration config = FlinkClusters.batchJob(BatchShuffleMode.ALL_EXCHANGES_BLOCKING, 5);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createRemoteEnvironment("localhost", restPort, config);
        env.setParallelism(4);
        env.disableOperatorChaining();
        env.fromSequence(0, RECORDS - 1)
                .map(line -> Tuple2.of(word(line), 1L))
                .returns(
                        org.apache.flink.api.common.typeinfo.Types.TUPLE(
                                org.apache.flink.api.common.typeinfo.Types.STRING,
                                org.apache.flink.api.common.typeinfo.Types.LONG))
                .keyBy(pair -> pair.f0)
                .map(new KillMidway(killFile.toString()))
                .keyBy(pair -> pair.f0)
                .reduce((a, b) -> Tuple2.of(a.f0, a.f1 + b.f1))
                .sinkTo(new FileSink(output.toString()));
        env.execute("railyard-process-cluster-word-count");

        Map<String, Long> counted = read(output);
        Map<String, Long> expected = new TreeMap<>();
        for (long line = 0; line < RECORDS; line++) {
            expected.merge(word(line), 1L, Long::sum);
        }
        if (!counted.equals(expected)) {
            System.out.println(
                    "word counts differ: "
                            + counted.size()
                            + " words counted, "
                            + expected.size()
                            + " expected");
            expected.forEach(
                    (word, count) -> {
                        if (!count.equals(counted.get(word))) {
                            System.out.println(
                                    "  "
                                            + word
                                            + ": "
                                            + counted.get(word)
                                            + " instead of "
                                            + count);
                        }
                    });
            System.exit(1);
        }
        System.out.println("exact: " + counted.size() + " words, " + RECORDS + " records");
    }

    static String word(long line) {
        return "word-" + Math.floorMod(line * 7919, WORDS);
    }

    /** Each subtask's last attempt's file, merged. */
    private static Map<String, Long> read(Path output) throws IOException {
        Map<Integer, Path> last = new HashMap<>();
        Map<Integer, Integer> lastAttempt = new HashMap<>();
        try (Stream<Path> files = Files.list(output)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".done")).toList()) {
                String name = file.getFileName().toString().replace(".done", "");
                int dash = name.indexOf('-');
                int subtask = Integer.parseInt(name.substring(0, dash));
                int attempt = Integer.parseInt(name.substring(dash + 1));
                if (attempt >= lastAttempt.getOrDefault(subtask, -1)) {
                    lastAttempt.put(subtask, attempt);
                    last.put(subtask, file);
                }
            }
        }
        Map<String, Long> counted = new TreeMap<>();
        for (Path file : last.values()) {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                int space = line.indexOf(' ');
                counted.merge(
                        line.substring(0, space),
                        Long.parseLong(line.substring(space + 1)),
                        Long::sum);
            }
        }
        return counted;
    }

    /**
     * Passes pairs on; its first attempt of subtask 0 writes its process's pid to the kill file
     * halfway and waits to be killed (at most 60 s).
     */
    static final class KillMidway
            extends RichMapFunction<Tuple2<String, Long>, Tuple2<String, Long>> {
        private static final long serialVersionUID = 1L;

        private final String killFile;
        private transient boolean armed;
        private transient long seen;

        KillMidway(String killFile) {
            this.killFile = killFile;
        }

        @Override
        public void open(OpenContext context) {
            armed =
                    getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() == 0
                            && getRuntimeContext().getTaskInfo().getAttemptNumber() == 0;
        }

        @Override
        public Tuple2<String, Long> map(Tuple2<String, Long> pair) throws Exception {
            if (armed && ++seen == RECORDS / 8) {
                Path tmp = Path.of(killFile + ".tmp");
                Files.writeString(tmp, Long.toString(ProcessHandle.current().pid()));
                Files.move(tmp, Path.of(killFile), StandardCopyOption.ATOMIC_MOVE);
                Thread.sleep(60_000);
            }
            return pair;
        }
    }

    /** Writes a subtask's records as "word count" lines to {@code <subtask>-<attempt>.done}. */
    static final class FileSink implements Sink<Tuple2<String, Long>> {
        private static final long serialVersionUID = 1L;

        private final String directory;

        FileSink(String directory) {
            this.directory = directory;
        }

        @Override
        public SinkWriter<Tuple2<String, Long>> createWriter(WriterInitContext context) {
            String name =
                    context.getTaskInfo().getIndexOfThisSubtask()
                            + "-"
                            + context.getTaskInfo().getAttemptNumber();
            StringBuilder lines = new StringBuilder();
            return new SinkWriter<>() {
                @Override
                public void write(Tuple2<String, Long> pair, Context writeContext) {
                    lines.append(pair.f0).append(' ').append(pair.f1).append('\n');
                }

                @Override
                public void flush(boolean endOfInput) {
                    if (!endOfInput) {
                        return;
                    }
                    try {
                        Path tmp = Path.of(directory, name + ".tmp");
                        Files.writeString(tmp, lines, StandardCharsets.UTF_8);
                        Files.move(
                                tmp,
                                Path.of(directory, name + ".done"),
                                StandardCopyOption.ATOMIC_MOVE);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }

                @Override
                public void close() {}
            };
        }
    }
}
