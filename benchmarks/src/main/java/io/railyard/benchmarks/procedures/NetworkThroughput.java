package io.railyard.benchmarks.procedures;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import io.railyard.deployment.JobId;
import io.railyard.deployment.JobSecret;
import io.railyard.shuffle.ShuffleDirectory;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.shuffle.partition.HybridPartitionWriter;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.shuffle.partition.ResultPartitionWriter;
import io.railyard.shuffle.partition.ShuffleWorker;
import io.railyard.topology.PartitionId;
import io.railyard.transport.DataServer;
import io.railyard.transport.TransportClient;
import io.railyard.transport.TransportOptions;
import io.railyard.worker.PartitionRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Railyard's side of the network throughput comparison, in the shape of Flink's {@code
 * StreamNetworkThroughputBenchmark}: {@code writers} record-writer threads, each writing 8-byte
 * records round-robin into a {@link PartitionKind#PIPELINED pipelined} partition of {@code
 * channels} subpartitions on a producing {@link ShuffleWorker}, served over TCP on loopback by a
 * {@link DataServer}; one receiving thread reads every subpartition of every partition through the
 * gates a {@link TransportClient} of a second {@link ShuffleWorker} opens, decodes the records and
 * counts them. Partitions, connections and gates live from {@link #start} to {@link #close}; {@link
 * #run} is one invocation of the benchmark on them.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li><em>Topology.</em> Flink's benchmark reads partition {@code w}'s subpartition {@code s} on
 *       channel {@code s} of gate {@code w} (a gate per partition, {@code channels} channels each,
 *       one union gate over them). A Railyard gate reads one subpartition of each of its
 *       partitions, so the same {@code writers × channels} channels are grouped the other way: gate
 *       {@code s} reads subpartition {@code s} of every partition ({@code channels} gates of {@code
 *       writers} channels each, one stream of the one connection per gate). The receiving thread
 *       serves gates that have data in the order their availability completed, as Flink's union
 *       gate serves its gates.
 *   <li><em>A round.</em> Each writer sends {@code records / writers} records, then broadcasts an
 *       end-of-round record (-1) to every subpartition and flushes, as Flink's writer threads end a
 *       round with a broadcast record and {@code flushAll()}; the round is over when the receiver
 *       has seen all {@code writers × channels} end-of-round records. Record {@code i} of writer
 *       {@code w} is {@code w << 40 | i} (i counting across rounds), so records are distinct and
 *       non-negative; every round checks that the receiver decoded exactly as many records, with
 *       the same sum, as the writers sent ({@link Delivered#checkAllRead}).
 *   <li><em>Flushing.</em> Flink's output flusher thread calls {@code flushAll()} every flush
 *       interval. A {@link HybridPartitionWriter} belongs to its writer's thread, so here one
 *       flusher thread raises each writer's flag every interval and the writer flushes at its next
 *       record. A writer blocked by back-pressure flushes when it resumes (its data is waiting to
 *       be read then anyway).
 *   <li><em>Memory.</em> 32 KiB pages (Flink's segment size), no compression (Flink's default). The
 *       producer's pool holds the writers' sort buffers, the pipelined bound of resident regions
 *       and the data server's pages for each stream, twice over; each reading gate is guaranteed
 *       {@link Settings#READ_GATE_PAGES} pages, what Flink gives the same four channels as
 *       exclusive buffers (two each).
 * </ul>
 *
 * <p>Threading: {@link #run} and {@link #close} are called by one thread, which also receives;
 * writers run on their own threads, the flusher on its own, the transport on its event loops.
 */
public final class NetworkThroughput implements AutoCloseable {
    /** Record-writer threads in Flink's benchmark. */
    public static final int FLINK_WRITERS = 4;

    /** Bytes per record: one long. */
    public static final int RECORD_BYTES = Long.BYTES;

    private static final JobId JOB = new JobId(1, 1);
    private static final long END_OF_ROUND = -1;
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(60);

    /**
     * The shape of a run.
     *
     * @param writers record writers = partitions, at least 1
     * @param channels subpartitions per partition = gates of the receiver, at least 1
     * @param flushInterval how often buffered records are made readable, positive
     * @param pageSizeBytes page size of both workers
     */
    public record Settings(int writers, int channels, Duration flushInterval, int pageSizeBytes) {
        /** Pages each reading gate is guaranteed. */
        public static final int READ_GATE_PAGES = 8;

        /** Sort-buffer pages of each writer (also the pipelined bound of resident pages). */
        public static final int SORT_BUFFER_PAGES = 64;

        /** Checks the settings. */
        public Settings {
            checkArgument(writers >= 1, "writers must be >= 1, was %s", writers);
            checkArgument(channels >= 1, "channels must be >= 1, was %s", channels);
            checkArgument(
                    !flushInterval.isNegative() && !flushInterval.isZero(),
                    "flush interval must be positive, was %s",
                    flushInterval);
        }

        /** Flink's shape: its 4 writers, {@code channels}, {@code flushInterval}, 32 KiB pages. */
        public static Settings flinkShape(int channels, Duration flushInterval) {
            return new Settings(FLINK_WRITERS, channels, flushInterval, 32 << 10);
        }

        /** The producing worker's options: see the class notes (memory). */
        ShuffleOptions producerOptions() {
            long pages =
                    2L
                                    * ((long) writers * 3 * SORT_BUFFER_PAGES
                                            + (long) channels
                                                    * TransportOptions.DEFAULT.servePages())
                            + 512;
            return options(pages, ShuffleOptions.DEFAULT.gatePages());
        }

        /** The reading worker's options: {@link #READ_GATE_PAGES} per gate and some to spare. */
        ShuffleOptions readerOptions() {
            return options((long) channels * READ_GATE_PAGES + 512, READ_GATE_PAGES);
        }

        private ShuffleOptions options(long pages, int gatePages) {
            return ShuffleOptions.builder()
                    .pageSizeBytes(pageSizeBytes)
                    .totalMemoryBytes(pages * pageSizeBytes)
                    .sortBufferPages(SORT_BUFFER_PAGES)
                    .gatePages(gatePages)
                    .compression(ShuffleOptions.Compression.NONE)
                    .build();
        }
    }

    private final Settings settings;
    private final ShuffleDirectory directory;

    /** Producer, reader, server, client, in the order started (closed in {@link #close}). */
    private final List<AutoCloseable> services = new ArrayList<>();

    private final PartitionRegistry registry = new PartitionRegistry();
    private final List<Writer> writers = new ArrayList<>();
    private final List<GateReader> gates = new ArrayList<>();
    private final BlockingQueue<GateReader> ready = new LinkedBlockingQueue<>();
    private final Receiver receiver = new Receiver();
    private final ScheduledExecutorService flusher =
            Executors.newSingleThreadScheduledExecutor(
                    task -> {
                        Thread thread = new Thread(task, "railyard-net-flusher");
                        thread.setDaemon(true);
                        return thread;
                    });

    private NetworkThroughput(Settings settings, ShuffleDirectory directory) {
        this.settings = settings;
        this.directory = directory;
    }

    /**
     * Starts both workers, the data server and the client under a new marked directory in {@code
     * parent}, creates and registers the partitions, starts the writers and the flusher, and opens
     * every gate.
     *
     * @throws IOException if a directory, a partition file or the server cannot be made (what was
     *     started is stopped again)
     */
    public static NetworkThroughput start(Settings settings, Path parent) throws IOException {
        ShuffleDirectory.sweepStale(parent);
        ShuffleDirectory directory =
                ShuffleDirectory.create(parent, "railyard-net-jmh-").deleteOnExit();
        NetworkThroughput run = new NetworkThroughput(settings, directory);
        try {
            run.open();
        } catch (IOException | RuntimeException e) {
            try {
                run.close();
            } catch (IOException | RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
        return run;
    }

    private void open() throws IOException {
        Path root = directory.path();
        ShuffleWorker producer = new ShuffleWorker(settings.producerOptions(), root.resolve("p"));
        services.add(producer);
        ShuffleWorker reader = new ShuffleWorker(settings.readerOptions(), root.resolve("r"));
        services.add(reader);
        DataServer server = DataServer.start(TransportOptions.DEFAULT, settings.pageSizeBytes());
        services.add(server);
        JobSecret secret = JobSecret.random();
        server.serve(JOB, secret, registry, producer);
        TransportClient client =
                new TransportClient(
                        TransportOptions.DEFAULT, reader.bufferPool(), reader.options());
        services.add(client);
        List<PartitionId> ids = new ArrayList<>(settings.writers());
        for (int w = 0; w < settings.writers(); w++) {
            PartitionId id = new PartitionId(w, 0);
            ResultPartitionWriter created =
                    producer.createPartition(id, settings.channels(), PartitionKind.PIPELINED);
            if (!(created instanceof HybridPartitionWriter hybrid)) {
                created.close();
                throw new IllegalStateException("a pipelined writer is not a hybrid writer");
            }
            writers.add(new Writer(w, hybrid, settings.channels()));
            registry.register(id, hybrid.partition(), () -> false);
            ids.add(id);
        }
        List<InetSocketAddress> servers = Collections.nCopies(ids.size(), server.address());
        for (int s = 0; s < settings.channels(); s++) {
            InputGate gate = client.openGate("c" + s, servers, ids, s, JOB, secret);
            GateReader drain = new GateReader(gate, ready);
            gates.add(drain);
            drain.awaitData();
        }
        for (Writer writer : writers) {
            writer.start();
        }
        long interval = settings.flushInterval().toNanos();
        var unused =
                flusher.scheduleAtFixedRate(
                        this::requestFlushes, interval, interval, TimeUnit.NANOSECONDS);
    }

    private void requestFlushes() {
        for (Writer writer : writers) {
            writer.flushDue = true;
        }
    }

    /** The settings of this run. */
    public Settings settings() {
        return settings;
    }

    /**
     * One round: each writer sends {@code records / writers} records and an end-of-round record to
     * every subpartition; returns once the receiver (this thread) decoded every end-of-round
     * record. O(records).
     *
     * @return what the receiver decoded: records, their bytes, and the sum of their values
     * @throws IllegalStateException if the receiver did not decode exactly the records sent (count
     *     and sum), or nothing arrived for 60 s
     * @throws IOException if a writer or a gate failed
     */
    public Delivered run(long records) throws IOException, InterruptedException {
        checkArgument(
                records >= settings.writers(),
                "records must be >= writers (%s), was %s",
                settings.writers(),
                records);
        long perWriter = records / settings.writers();
        receiver.reset();
        List<CompletableFuture<Delivered>> sent = new ArrayList<>(writers.size());
        for (Writer writer : writers) {
            sent.add(writer.send(perWriter, null));
        }
        receive((long) settings.writers() * settings.channels(), sent);
        Delivered written = Delivered.NONE;
        for (CompletableFuture<Delivered> one : sent) {
            written = written.plus(result(one));
        }
        Delivered read = receiver.delivered();
        Delivered.checkAllRead("Railyard", read, written);
        return read;
    }

    private void receive(long endsExpected, List<CompletableFuture<Delivered>> sent)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + STALL_NANOS;
        while (receiver.ends < endsExpected) {
            GateReader gate = ready.poll(10, TimeUnit.MILLISECONDS);
            if (gate == null) {
                for (CompletableFuture<Delivered> one : sent) {
                    if (one.isCompletedExceptionally()) {
                        result(one);
                    }
                }
                checkState(
                        System.nanoTime() < deadline,
                        "Railyard: nothing arrived for %s s; %s of %s end-of-round records",
                        TimeUnit.NANOSECONDS.toSeconds(STALL_NANOS),
                        receiver.ends,
                        endsExpected);
                continue;
            }
            deadline = System.nanoTime() + STALL_NANOS;
            gate.drain(receiver);
        }
    }

    private static Delivered result(CompletableFuture<Delivered> sent)
            throws IOException, InterruptedException {
        try {
            return sent.get(STALL_NANOS, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("Railyard: a writer did not end its round", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IllegalStateException("Railyard: a writer failed: " + cause, cause);
        }
    }

    /**
     * Stops the flusher, closes the gates, the client and the server, releases the partitions,
     * stops the writers (each abandons its partition), closes both workers and deletes the
     * directory. The first failure is thrown, later ones attached to it.
     */
    @Override
    public void close() throws IOException {
        List<Exception> failures = new ArrayList<>();
        flusher.shutdownNow();
        for (GateReader gate : gates) {
            gate.gate.close();
        }
        for (int i = services.size() - 1; i >= 2; i--) { // client, then server
            closeQuietly(services.get(i), failures);
        }
        try {
            registry.releaseAll();
        } catch (IOException | RuntimeException e) {
            failures.add(e);
        }
        for (Writer writer : writers) {
            writer.stop(failures);
        }
        for (int i = Math.min(1, services.size() - 1); i >= 0; i--) { // reader, then producer
            closeQuietly(services.get(i), failures);
        }
        closeQuietly(directory, failures);
        if (!failures.isEmpty()) {
            Exception first = failures.get(0);
            for (int i = 1; i < failures.size(); i++) {
                first.addSuppressed(failures.get(i));
            }
            throw first instanceof IOException io ? io : new IOException(first);
        }
    }

    private static void closeQuietly(AutoCloseable closeable, List<Exception> failures) {
        try {
            closeable.close();
        } catch (Exception e) {
            failures.add(e);
        }
    }

    /** The receiver's count of one round: records, their sum and end-of-round records. */
    private static final class Receiver implements RecordDecoder.RecordSink {
        private long records;
        private long sum;
        private long ends;

        void reset() {
            records = 0;
            sum = 0;
            ends = 0;
        }

        Delivered delivered() {
            return new Delivered(records, records * RECORD_BYTES, sum);
        }

        @Override
        public void accept(int channel, ByteBuffer record) {
            if (record.remaining() != RECORD_BYTES) {
                throw new IllegalStateException(
                        "Railyard: a record of "
                                + record.remaining()
                                + " bytes on channel "
                                + channel
                                + ", expected "
                                + RECORD_BYTES);
            }
            long value = record.getLong(record.position());
            if (value == END_OF_ROUND) {
                ends++;
            } else {
                records++;
                sum += value;
            }
        }
    }

    /**
     * One gate of the receiver: queued on {@code ready} when its availability completes, drained by
     * the receiving thread until it has nothing, then waiting again.
     */
    private static final class GateReader {
        final InputGate gate;
        private final RecordDecoder decoder;
        private final BlockingQueue<GateReader> ready;
        private final AtomicBoolean queued = new AtomicBoolean();
        private final Runnable enqueue = this::enqueue;

        GateReader(InputGate gate, BlockingQueue<GateReader> ready) {
            this.gate = gate;
            this.decoder = new RecordDecoder(gate.numChannels());
            this.ready = ready;
        }

        private void enqueue() {
            if (queued.compareAndSet(false, true)) {
                ready.add(this);
            }
        }

        /** Queues this gate when its availability completes (at once if it has completed). */
        void awaitData() {
            var unused = gate.availability().thenRun(enqueue);
        }

        /** Decodes every buffer the gate has into {@code sink}, then waits for more. */
        void drain(RecordDecoder.RecordSink sink) throws IOException {
            queued.set(false);
            InputGate.Buffer buffer;
            while ((buffer = gate.poll()) != null) {
                try {
                    decoder.decode(buffer.channel(), buffer.data(), sink);
                } finally {
                    buffer.recycle();
                }
            }
            awaitData();
        }
    }

    /** One record writer: its partition's writer, a record a channel in turn. */
    private static final class Writer extends RoundWriter {
        private final HybridPartitionWriter out;
        private final int channels;
        private final ByteBuffer record = ByteBuffer.allocate(RECORD_BYTES);
        private long sequence;
        private int next;
        volatile boolean flushDue;

        Writer(int index, HybridPartitionWriter out, int channels) {
            super(index, "railyard-net-writer-" + index);
            this.out = out;
            this.channels = channels;
        }

        @Override
        protected Delivered sendRound(long records) throws IOException {
            long base = (long) index() << 40;
            long sum = 0;
            for (long i = 0; i < records; i++) {
                if (flushDue) {
                    flushDue = false;
                    out.flush();
                }
                long value = base | (sequence++ & SEQUENCE_MASK);
                sum += value;
                record.clear();
                record.putLong(0, value);
                out.emit(record, next);
                next = next + 1 == channels ? 0 : next + 1;
            }
            record.clear();
            record.putLong(0, END_OF_ROUND);
            out.broadcast(record);
            out.flush();
            flushDue = false;
            return new Delivered(records, records * RECORD_BYTES, sum);
        }

        @Override
        protected void closeOutput() {
            out.close();
        }
    }
}
