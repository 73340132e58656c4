package io.railyard.shuffle.partition;

import com.google.common.util.concurrent.Uninterruptibles;
import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.Page;
import io.railyard.shuffle.format.CorruptPartitionFileException;
import io.railyard.shuffle.format.FrameCodec;
import io.railyard.shuffle.format.FrameContext;
import io.railyard.shuffle.format.FrameHeader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The worker's one IO thread for reading partition files. It serves every channel that wants data,
 * file by file; within a file it serves the pending channels in file-offset order, merges adjacent
 * sections into one large scattering read, and slices many frames out of it, each checked and
 * decoded into a page of the channel's gate.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li>Fair shares: each round serves every file with waiting channels once, at most {@code
 *       shuffle.read.batch-pages} pages of reads per file.
 *   <li>Memory: the read staging area ({@code read.batch-pages} pages plus one scratch page) is
 *       taken from the buffer pool once; decoded buffers come from each gate's own pages, and a
 *       channel's read is cut to the room its gate has, so the IO thread never waits for memory.
 *   <li>Hand-off: what a round decodes for a gate reaches its consumer at the end of the round, in
 *       one lock and one wake-up per gate, not per buffer.
 *   <li>A frame cut by the end of a read is read again next round; a frame cut by the end of the
 *       file is a truncated file.
 *   <li>Failures (missing file, release, checksum, index) fail the channel's gate only; a bug (a
 *       {@link RuntimeException}) fails the gates of its round as lost partitions. An {@link Error}
 *       is not handled: it ends the IO thread, whose uncaught-exception handler tells the worker
 *       ({@code onDeath}, which fails every open gate with an {@link IllegalStateException} naming
 *       it, so no consumer waits for ever) and then reports it as the JVM would.
 * </ul>
 *
 * <p>Threading: {@link #ready}, {@link #execute}, {@link #cancel} and {@link #close} are
 * thread-safe; everything else runs on the IO thread. Its lock guards the queues and the open
 * files; its place in the lock order is in the {@code io.railyard.shuffle} package documentation.
 */
final class IoScheduler implements AutoCloseable {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();

    // The channels handed over for a turn: each at most once, as a gate hands a channel over once
    // per turn (InputGate: from dispatch to served), plus once per cancel.
    @GuardedBy("lock")
    private final List<ChannelReader> ready = new ArrayList<>();

    @GuardedBy("lock")
    private final List<Runnable> tasks = new ArrayList<>();

    @GuardedBy("lock")
    private final Map<Path, ReadFile> files = new HashMap<>();

    @GuardedBy("lock")
    private boolean closing;

    @GuardedBy("lock")
    private @Nullable Throwable deathCause;

    // Gates given buffers or ended channels this round: published once at its end.
    private final List<LocalInputGate> touched = new ArrayList<>();
    // Gates published to whose consumers were not woken yet (InputGate#publish): published again
    // after every round until they are, and woken before the IO thread idles.
    private final List<LocalInputGate> deferred = new ArrayList<>();
    private final BufferOwner owner;
    private final List<Page> stagingPages;
    private final ReadStaging staging;
    private final FrameCodec codec;
    private final FrameContext context = new FrameContext();
    // Hands a hybrid channel's frames to its gate; one for all channels (the IO thread serves one
    // at a time), so that a channel carries no sink object of its own.
    private final ChannelSink hybridSink = new ChannelSink();
    private final int pageSize;
    private final long budgetBytes;
    private final AtomicLong bytesRead = new AtomicLong();
    private final AtomicLong reads = new AtomicLong();
    private final AtomicLong sections = new AtomicLong();
    private final AtomicLong handOffs = new AtomicLong();
    private final Consumer<Throwable> onDeath;
    private final Thread thread;
    private int roundStart;

    /**
     * Starts the IO thread {@code threadName}, reading through the staging {@code pages} of {@code
     * owner}; {@code onDeath} runs on that thread if it ends by an uncaught exception or error
     * (before the exception is reported), and must fail every gate that could wait for it.
     */
    IoScheduler(
            ShuffleOptions options,
            BufferOwner owner,
            List<Page> pages,
            String threadName,
            Consumer<Throwable> onDeath) {
        this.owner = owner;
        this.stagingPages = pages;
        this.pageSize = options.pageSizeBytes();
        ByteBuffer[] run = new ByteBuffer[pages.size() - 1];
        for (int i = 0; i < run.length; i++) {
            run[i] = pages.get(i).buffer();
        }
        this.staging = new ReadStaging(run, pages.get(run.length).buffer(), pageSize);
        this.budgetBytes = staging.capacity();
        this.codec = new FrameCodec(options);
        this.onDeath = onDeath;
        this.thread = new Thread(this::run, threadName);
        thread.setDaemon(true);
        thread.setUncaughtExceptionHandler(this::died);
        thread.start();
    }

    /** Pages the scheduler holds: its staging area and one scratch page. */
    static int pagesNeeded(ShuffleOptions options) {
        return options.readBatchPages() + 1;
    }

    /** Bytes per page. */
    int pageSize() {
        return pageSize;
    }

    long bytesRead() {
        return bytesRead.get();
    }

    /** Read calls made (one per merged run of adjacent sections). */
    long reads() {
        return reads.get();
    }

    /** Channel sections served by those reads (more than reads when runs were merged). */
    long channelReads() {
        return sections.get();
    }

    /** Rounds' hand-offs of decoded buffers to gates (one lock, at most one wake-up each). */
    long handOffs() {
        return handOffs.get();
    }

    /**
     * Asks the IO thread to read for {@code channel}, once per turn its gate gives it. Thread-safe.
     */
    void ready(ChannelReader channel) {
        lock.lock();
        try {
            assert !ready.contains(channel) : "channel handed over twice for one turn";
            if (!channel.done) {
                ready.add(channel);
                work.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Runs {@code task} on the IO thread before its next round (a hybrid partition's spill).
     * Thread-safe; only enqueues. A task still queued at {@link #close} does not run.
     */
    void execute(Runnable task) {
        lock.lock();
        try {
            if (!closing) {
                tasks.add(task);
                work.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Stops reading for {@code channels} (their gate closed). Thread-safe. */
    void cancel(List<ChannelReader> channels) {
        lock.lock();
        try {
            ready.addAll(channels); // the IO thread drops them: their gate is closed or failed
            work.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Stops the IO thread, closes every file and returns the staging pages. Idempotent. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closing) {
                return;
            }
            closing = true;
            work.signal();
        } finally {
            lock.unlock();
        }
        Uninterruptibles.joinUninterruptibly(thread);
        List<ReadFile> open;
        lock.lock();
        try {
            open = new ArrayList<>(files.values());
            files.clear();
        } finally {
            lock.unlock();
        }
        for (ReadFile file : open) {
            file.close();
        }
        for (Page page : stagingPages) {
            owner.recycle(page);
        }
        owner.close();
    }

    /** Files the IO thread holds open (a snapshot; approximate while it runs). */
    int openFiles() {
        lock.lock();
        try {
            int open = 0;
            for (ReadFile file : files.values()) {
                open += file.isOpen() ? 1 : 0;
            }
            return open;
        } finally {
            lock.unlock();
        }
    }

    /** Why the IO thread died (an uncaught exception or error), or null while it runs or closed. */
    @Nullable Throwable deathCause() {
        lock.lock();
        try {
            return deathCause;
        } finally {
            lock.unlock();
        }
    }

    /** The IO thread's uncaught-exception handler: the worker fails its gates, then it reports. */
    private void died(Thread dead, Throwable cause) {
        lock.lock();
        try {
            deathCause = cause;
        } finally {
            lock.unlock();
        }
        try {
            onDeath.accept(cause);
        } finally {
            dead.getThreadGroup().uncaughtException(dead, cause);
        }
    }

    /** What the IO thread found when it looked for work. */
    private enum Work {
        /** Channels or tasks to serve. */
        SOME,
        /** None, and it did not wait for any (deferred wake-ups were pending). */
        NONE,
        /** The scheduler is closing: the thread ends. */
        CLOSING
    }

    private void run() {
        List<ChannelReader> round = new ArrayList<>();
        List<Runnable> jobs = new ArrayList<>();
        while (true) {
            Work found = takeWork(round, jobs, deferred.isEmpty());
            if (found == Work.NONE) {
                publishTouched(true); // nothing to do: wake every consumer still to be woken
                continue;
            }
            if (found == Work.CLOSING) {
                return;
            }
            runJobs(jobs);
            try {
                serveRound(round);
            } catch (RuntimeException e) {
                // A bug must not leave consumers waiting forever: fail every gate of the round.
                // (An Error is not caught: it ends the thread, and died() fails every gate.)
                for (ChannelReader channel : round) {
                    channel.gate.fail(
                            new PartitionLostException(
                                    channel.partition.id(), "IO scheduler failure: " + e, e));
                    finish(channel, false);
                }
            } finally {
                publishTouched(false);
            }
            round.clear();
        }
    }

    /**
     * Moves the queued channels and tasks into {@code round} and {@code jobs}, waiting for some if
     * {@code mayWait}.
     */
    private Work takeWork(List<ChannelReader> round, List<Runnable> jobs, boolean mayWait) {
        lock.lock();
        try {
            while (ready.isEmpty() && tasks.isEmpty() && !closing) {
                if (!mayWait) {
                    return Work.NONE;
                }
                work.awaitUninterruptibly();
            }
            if (closing) {
                return Work.CLOSING;
            }
            jobs.addAll(tasks);
            tasks.clear();
            round.addAll(ready);
            ready.clear();
            return Work.SOME;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Hands each gate what the round decoded for it (one lock per gate), and publishes again to the
     * gates whose wake-up was deferred; {@code force} wakes them all.
     */
    private void publishTouched(boolean force) {
        int handed = 0;
        for (int i = 0; i < touched.size(); i++) {
            LocalInputGate gate = touched.get(i);
            handed += gate.publish(force) ? 1 : 0;
            if (gate.round().wakeDeferred() && gate.round().enterDeferredList()) {
                deferred.add(gate);
            }
        }
        touched.clear();
        for (int i = deferred.size() - 1; i >= 0; i--) {
            LocalInputGate gate = deferred.get(i);
            gate.publish(force);
            if (!gate.round().wakeDeferred()) {
                gate.round().leaveDeferredList();
                deferred.remove(i);
            }
        }
        handOffs.addAndGet(handed);
    }

    private static void runJobs(List<Runnable> jobs) {
        for (int i = 0; i < jobs.size(); i++) {
            try {
                jobs.get(i).run();
            } catch (RuntimeException e) {
                // A task reports its own failures (a spill fails its partition); one that throws
                // anyway is a bug, which must not stop the thread every reader depends on: it is
                // reported as the JVM reports an uncaught exception, and the thread goes on.
                Thread thread = Thread.currentThread();
                thread.getThreadGroup().uncaughtException(thread, e);
            }
        }
        jobs.clear();
    }

    private void serveRound(List<ChannelReader> round) {
        Map<ReadFile, List<ChannelReader>> byFile = new LinkedHashMap<>();
        List<ChannelReader> hybrid = List.of();
        for (ChannelReader channel : round) {
            if (channel.done) {
                continue;
            }
            if (channel.gate.isClosedOrFailed()) {
                finish(channel, false);
                continue;
            }
            if (channel.partition instanceof HybridPartition) {
                if (hybrid.isEmpty()) {
                    hybrid = new ArrayList<>();
                }
                hybrid.add(channel);
                continue;
            }
            try {
                if (!channel.started && !start(channel)) {
                    channel.gate.served(channel, false);
                    continue;
                }
                byFile.computeIfAbsent(fileOf(channel), f -> new ArrayList<>()).add(channel);
            } catch (IOException e) {
                failChannel(channel, e);
            }
        }
        List<Map.Entry<ReadFile, List<ChannelReader>>> entries = new ArrayList<>(byFile.entrySet());
        int n = entries.size();
        for (int i = 0; i < n; i++) {
            Map.Entry<ReadFile, List<ChannelReader>> entry = entries.get((roundStart + i) % n);
            serveFile(entry.getKey(), entry.getValue());
        }
        roundStart = n == 0 ? 0 : (roundStart + 1) % n;
        for (ChannelReader channel : hybrid) {
            serveHybrid(channel);
        }
    }

    /**
     * Serves a channel of a hybrid partition: attaches its reader on its first turn, then hands its
     * frames to its gate, from memory or disk, until its credit is spent, it has to wait for the
     * producer, or it ends.
     */
    private void serveHybrid(ChannelReader channel) {
        boolean wantsMore;
        try {
            HybridReader reader = channel.hybrid;
            if (reader == null) {
                channel.started = true;
                HybridPartition partition = (HybridPartition) channel.partition;
                reader =
                        partition.attach(
                                channel.subpartition(),
                                Objects.requireNonNull(channel.hybridRegion),
                                channel.gate.feed());
                channel.hybrid = reader;
            }
            hybridSink.channel = channel;
            HybridReader.Where where;
            try {
                where = reader.read(codec, staging, context, hybridSink, channel.gate.turnBytes());
            } finally {
                hybridSink.channel = null;
            }
            if (where == HybridReader.Where.END) {
                finish(channel, true);
            }
            wantsMore = where == HybridReader.Where.MEMORY || where == HybridReader.Where.DISK;
        } catch (IOException e) {
            failChannel(channel, e);
            return;
        }
        channel.gate.served(channel, wantsMore);
    }

    /** {@link #deliverFrame} for the channel being served. Confined to the IO thread. */
    private final class ChannelSink implements HybridReader.FrameSink {
        private @Nullable ChannelReader channel;

        @Override
        public boolean accept(FrameHeader header, ByteBuffer stored, FrameContext at)
                throws IOException {
            ChannelReader served = channel;
            if (served == null) {
                throw new IllegalStateException("no channel is being served");
            }
            return deliverFrame(served, header, stored, at);
        }
    }

    /**
     * Decodes one checked frame into a buffer of the channel's gate and queues it; false if the
     * gate has no room for it now.
     */
    private boolean deliverFrame(
            ChannelReader channel, FrameHeader header, ByteBuffer stored, FrameContext at)
            throws CorruptPartitionFileException {
        LocalBuffer buffer = channel.gate.tryTake(channel.index, header.uncompressedLength());
        if (buffer == null) {
            return false;
        }
        try {
            codec.open(header, stored, buffer.data(), at);
        } catch (CorruptPartitionFileException e) {
            buffer.discard();
            throw e;
        }
        if (channel.gate.round().deliver(buffer)) {
            touched.add(channel.gate);
        }
        return true;
    }

    /** Loads the channel's first non-empty section; false if it has no data at all. */
    private boolean start(ChannelReader channel) throws IOException {
        channel.started = true;
        channel.region = -1;
        channel.remaining = 0;
        return nextSection(channel);
    }

    /** Moves to the next non-empty section; false (and the channel finished) if none is left. */
    private boolean nextSection(ChannelReader channel) throws IOException {
        BlockingPartition partition = channel.blocking();
        while (channel.remaining == 0) {
            if (channel.region + 1 >= partition.regionCount()) {
                finish(channel, true);
                return false;
            }
            channel.region++;
            partition.loadSection(channel, channel.region);
        }
        return true;
    }

    private ReadFile fileOf(ChannelReader channel) {
        ReadFile file = channel.file;
        if (file == null) {
            BlockingPartition partition = channel.blocking();
            Path path = partition.dataFile(channel.subpartition());
            lock.lock();
            try {
                file = files.computeIfAbsent(path, p -> new ReadFile(p, partition));
            } finally {
                lock.unlock();
            }
            file.users++;
            channel.file = file;
        }
        return file;
    }

    private void finish(ChannelReader channel, boolean endOfData) {
        if (channel.done) {
            return;
        }
        channel.done = true;
        channel.partition.readers.remove(channel);
        HybridReader reader = channel.hybrid;
        if (reader != null) {
            reader.partition().detach(reader, endOfData);
        }
        ReadFile file = channel.file;
        if (file != null && --file.users == 0) {
            file.close();
            lock.lock();
            try {
                files.remove(file.path);
            } finally {
                lock.unlock();
            }
        }
        if (endOfData && channel.gate.round().channelFinished(channel)) {
            touched.add(channel.gate);
        }
    }

    private void serveFile(ReadFile file, List<ChannelReader> channels) {
        if (file.partition instanceof SortPartition) {
            joinWaitingReaders(file, channels);
        }
        for (ChannelReader channel : channels) {
            channel.turnBytes = channel.gate.turnBytes();
        }
        channels.sort(Comparator.comparingLong(c -> c.offset));
        long budget = budgetBytes;
        int size = channels.size();
        int i = 0;
        while (i < size && budget > 0) {
            // One run: channels whose wanted bytes follow each other in the file.
            long runStart = channels.get(i).offset;
            long runEnd = runStart + want(channels.get(i));
            int end = i + 1;
            while (end < size
                    && channels.get(end).offset == runEnd
                    && runEnd - runStart + want(channels.get(end)) <= budget) {
                runEnd += want(channels.get(end));
                end++;
            }
            long length = Math.min(runEnd - runStart, budget);
            if (length > 0) { // else every gate of the run is full: they wait for room
                budget -= length;
                readRun(file, channels.subList(i, end), runStart, (int) length);
            }
            i = end;
        }
        for (ChannelReader channel : channels) {
            channel.gate.served(channel, !channel.done);
        }
    }

    /**
     * Adds the other channels reading this sort file whose gates this scheduler serves and can take
     * data now, so that neighbouring sections of consumers running at once are read in one call.
     *
     * <p>Only this scheduler's gates: a partition read in-process by the consumers of several
     * workers (the local engine) lists their channels too, and another worker's gate belongs to
     * that worker's IO thread — what a round decoded for it, the wake-up it defers and the page it
     * fills are confined to that thread. Serving such a channel here left its consumer waiting for
     * ever with the gate's pages held (and, seen once, without some of its records): {@code
     * LocalEngineTest}, a gate with fewer pages than channels reading other workers' partitions.
     */
    private void joinWaitingReaders(ReadFile file, List<ChannelReader> channels) {
        for (ChannelReader other : file.partition.readers) {
            if (other.done || channels.contains(other) || !other.gate.isServedBy(this)) {
                continue;
            }
            if (!other.gate.tryDispatchNow(other)) {
                continue;
            }
            try {
                if (!other.started && !start(other)) {
                    other.gate.served(other, false);
                    continue;
                }
                fileOf(other);
                channels.add(other);
            } catch (IOException e) {
                failChannel(other, e);
            }
        }
    }

    /** Bytes worth reading for a channel this round: what its gate can take, within its section. */
    private long want(ChannelReader channel) {
        return Math.min(channel.remaining, channel.turnBytes);
    }

    private void readRun(ReadFile file, List<ChannelReader> run, long start, int length) {
        int got;
        try {
            if (file.partition.isReleased()) {
                throw new PartitionLostException(
                        file.partition.id(), "the partition was released", null);
            }
            got = staging.read(file.channel(), start, length);
        } catch (IOException e) {
            IOException cause =
                    e instanceof PartitionLostException
                            ? e
                            : new PartitionLostException(
                                    file.partition.id(),
                                    file.partition.isReleased()
                                            ? "the partition was released while being read"
                                            : "reading "
                                                    + file.path
                                                    + " at offset "
                                                    + start
                                                    + ": "
                                                    + e,
                                    e);
            for (ChannelReader channel : run) {
                failChannel(channel, cause);
            }
            return;
        }
        bytesRead.addAndGet(got);
        reads.incrementAndGet();
        sections.addAndGet(run.size());
        for (ChannelReader channel : run) {
            try {
                slice(file, channel, start, got, got < length);
            } catch (IOException e) {
                failChannel(channel, e);
            }
        }
    }

    /**
     * Slices the channel's frames out of the staging area ({@code got} bytes read from {@code
     * start}); stops at the end of what was read or of what its gate can take.
     */
    private void slice(ReadFile file, ChannelReader channel, long start, int got, boolean eof)
            throws IOException {
        ResultPartition partition = channel.partition;
        while (channel.remaining > 0) {
            long at = channel.offset;
            int position = (int) (at - start);
            context.at(partition.id(), file.path, at);
            if (position + FrameHeader.BYTES > got) {
                checkNotTruncated(eof);
                return;
            }
            FrameHeader header = staging.header(position);
            int frameLength = codec.frameLength(header, context);
            if (frameLength > channel.remaining) {
                throw context.corrupt(
                        "frame of "
                                + frameLength
                                + " bytes runs past its section ("
                                + channel.remaining
                                + " bytes left)");
            }
            if (position + frameLength > got) {
                checkNotTruncated(eof);
                return;
            }
            channel.order.check(header, context);
            if (!deliverFrame(channel, header, staging.stored(position, frameLength), context)) {
                return;
            }
            channel.order.count(header);
            channel.offset += frameLength;
            channel.remaining -= frameLength;
            if (channel.remaining == 0
                    && (!nextSection(channel) || channel.offset != at + frameLength)) {
                return; // done, or the next section is elsewhere in the file: next round
            }
        }
    }

    private void checkNotTruncated(boolean eof) throws CorruptPartitionFileException {
        if (eof) {
            throw context.corrupt("the data file ends inside a frame (truncated)");
        }
    }

    /** Fails the channel's gate with {@code e} as a lost partition and stops the channel. */
    private void failChannel(ChannelReader channel, IOException e) {
        channel.gate.fail(e instanceof PartitionLostException lost ? lost : lost(channel, e));
        finish(channel, false);
    }

    private static PartitionLostException lost(ChannelReader channel, IOException e) {
        return new PartitionLostException(
                channel.partition.id(),
                "reading subpartition " + channel.subpartition() + ": " + e,
                e);
    }
}
