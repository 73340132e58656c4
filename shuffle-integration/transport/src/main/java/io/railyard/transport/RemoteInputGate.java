package io.railyard.transport;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.netty.buffer.ByteBuf;
import io.railyard.deployment.JobId;
import io.railyard.deployment.JobSecret;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.buffer.BufferOwner;
import io.railyard.shuffle.buffer.Page;
import io.railyard.shuffle.partition.InputGate;
import io.railyard.topology.PartitionId;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * An {@link InputGate} whose partitions are read over the network: one stream per (worker, up to
 * {@value Wire#MAX_OPEN_PARTITIONS} of its partitions), each stream multiplexed on the one
 * connection to its worker.
 *
 * <h2>Credit</h2>
 *
 * The gate is one owner of its worker's pool guaranteed {@code shuffle.read.gate-pages} pages, as a
 * local gate is, whatever its number of channels. A page is granted to a stream as one credit only
 * for data waiting at its server: the backlog it announces or piggybacks is exact, the pages that
 * data fills beyond the page being filled, and a stream never holds more unused credit than that (a
 * page granted where no data waits would idle while another stream of the gate starves for it: with
 * pipelined producers waiting for their consumers, a deadlock). The page is taken from the pool
 * when it is granted, so data that arrives always has a page to land in: the bytes are copied once,
 * from the socket's buffer straight into the page. A stream holds at most {@value #MAX_CREDIT}
 * pages of credit; streams wanting credit are served round-robin. Server and gate pack the stream's
 * data into the granted pages by one rule (a piece fills the rest of the current page before the
 * next page is started), so pages are full and neither side waits for the other to say how much
 * fit.
 *
 * <p>Failures: an {@code ERROR} naming a lost partition fails the gate with {@link
 * PartitionLostException} for it; a connection that cannot be made or is lost fails it with {@link
 * PartitionLostException} for the stream's first partition (its worker is lost); a refused stream
 * (wrong secret) with {@link IllegalStateException}.
 *
 * <p>Threading: the consumer polls; event loops deliver; buffers are recycled from any thread. The
 * gate's monitor guards its queue, its streams' credit and its pages.
 */
final class RemoteInputGate implements InputGate {
    /**
     * The most pages of credit one stream holds at once: measured at P = 1 and 100 (`shuffle
     * --transport tcp`), 8 read 15-20 % faster than 4 and as fast as 16.
     */
    static final int MAX_CREDIT = 8;

    /** Pages of credit told to a server at once, while it has as many in hand (see Stream). */
    static final int CREDIT_BATCH = MAX_CREDIT / 2;

    private final String name;
    private final BufferOwner owner;
    private final int capacity;
    private final int pageSize;
    private final int numChannels;
    private final List<Stream> streams = new ArrayList<>();

    @GuardedBy("this")
    private ArrayDeque<RemoteBuffer> queue = new ArrayDeque<>();

    @GuardedBy("this")
    private long queueBytes;

    private ArrayDeque<RemoteBuffer> taken = new ArrayDeque<>(); // the consumer's
    private long takenBytes; // the consumer's

    @GuardedBy("this")
    private final ArrayDeque<Stream> wanting = new ArrayDeque<>();

    @GuardedBy("this")
    private CompletableFuture<Void> availability = new CompletableFuture<>();

    @GuardedBy("this")
    private volatile @Nullable RuntimeException failure;

    @GuardedBy("this")
    private int pagesHeld;

    @GuardedBy("this")
    private @Nullable Page spare;

    @GuardedBy("this")
    private boolean requesting;

    @GuardedBy("this")
    private int streamsEnded;

    @GuardedBy("this")
    private boolean closed;

    RemoteInputGate(String name, BufferOwner owner, int pageSize, int numChannels) {
        this.name = name;
        this.owner = owner;
        this.capacity = owner.guaranteedPages();
        this.pageSize = pageSize;
        this.numChannels = numChannels;
    }

    /**
     * A stream of this gate: channels {@code channels[i]} read subpartition {@code subpartition} of
     * {@code partitions[i]}, for job {@code job}.
     */
    Stream addStream(
            ClientConnection connection,
            PartitionId[] partitions,
            int[] channels,
            int subpartition,
            JobId job,
            JobSecret secret) {
        Stream stream =
                new Stream(this, connection, partitions, channels, subpartition, job, secret);
        streams.add(stream);
        return stream;
    }

    /** Called once every stream was added: a gate without streams is finished at once. */
    synchronized void started() {
        if (streams.isEmpty()) {
            availability.complete(null);
        }
    }

    List<Stream> streams() {
        return streams;
    }

    int pageSize() {
        return pageSize;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int numChannels() {
        return numChannels;
    }

    @Override
    public @Nullable Buffer poll() throws PartitionLostException {
        throwIfFailed(failureSeen());
        RemoteBuffer next = taken.poll();
        if (next == null) {
            next = takeQueued();
        }
        if (next != null) {
            takenBytes -= next.data().remaining();
        }
        return next;
    }

    private synchronized @Nullable RemoteBuffer takeQueued() throws PartitionLostException {
        throwIfFailed(failure);
        if (queue.isEmpty()) {
            if (availability.isDone() && !isFinishedLocked()) {
                availability = new CompletableFuture<>();
            }
            return null;
        }
        ArrayDeque<RemoteBuffer> queued = queue;
        queue = taken;
        taken = queued;
        takenBytes = queueBytes;
        queueBytes = 0;
        return taken.poll();
    }

    @Override
    public synchronized long bytesReady() {
        return takenBytes + queueBytes;
    }

    @SuppressWarnings("GuardedBy") // a volatile read: a failure is never cleared once set
    private @Nullable RuntimeException failureSeen() {
        return failure;
    }

    private static void throwIfFailed(@Nullable RuntimeException failed)
            throws PartitionLostException {
        if (failed instanceof LostPartition lost) {
            throw lost.exception();
        }
        if (failed != null) {
            throw failed;
        }
    }

    @Override
    public synchronized CompletableFuture<Void> availability() {
        return availability;
    }

    @Override
    public boolean isFinished() {
        if (!taken.isEmpty()) {
            return false;
        }
        synchronized (this) {
            return isFinishedLocked();
        }
    }

    @GuardedBy("this")
    private boolean isFinishedLocked() {
        return streamsEnded == streams.size() && queue.isEmpty();
    }

    @Override
    public int pagesInUse() {
        return owner.pagesInUse();
    }

    @Override
    public void close() {
        List<RemoteBuffer> drop;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            drop = new ArrayList<>(queue);
            drop.addAll(taken);
            queue.clear();
            taken.clear();
            queueBytes = 0;
            takenBytes = 0;
            wanting.clear();
            availability.complete(null);
            for (Stream stream : streams) {
                stream.dropCreditLocked();
            }
            dropSpareLocked();
        }
        for (RemoteBuffer buffer : drop) {
            buffer.recycle();
        }
        cancelStreams();
        closeOwnerIfIdle();
    }

    private void cancelStreams() {
        for (Stream stream : streams) {
            stream.connection.cancel(stream);
        }
    }

    // ---- event loops ----

    /**
     * {@code payload} arrived for {@code stream}'s channel {@code channel} with {@code backlog}
     * pages waiting behind it: copied into the stream's current page, or the next page of its
     * credit, and queued.
     *
     * @throws ProtocolException if the channel is not the stream's, or the data exceeds its credit
     */
    void receive(Stream stream, int channel, int backlog, ByteBuf payload) {
        List<Stream> grants;
        synchronized (this) {
            if (closed || failure != null || stream.ended) {
                return;
            }
            if (channel < 0 || channel >= stream.channels.length) {
                throw new ProtocolException(
                        "DATA for channel "
                                + channel
                                + " of a stream of "
                                + stream.channels.length);
            }
            int length = payload.readableBytes();
            if (stream.room == 0) {
                Page page = stream.credit.poll();
                if (page == null) {
                    throw new ProtocolException("DATA beyond the stream's credit");
                }
                stream.detachCurrentLocked();
                stream.current = new RemotePage(page);
                stream.room = pageSize;
            }
            if (length > stream.room) {
                throw new ProtocolException(
                        "DATA of " + length + " bytes where " + stream.room + " were left");
            }
            RemotePage page = stream.current;
            if (page == null) {
                throw new IllegalStateException("stream has room but no page");
            }
            ByteBuffer slice = page.page.buffer().slice(pageSize - stream.room, length);
            stream.room -= length;
            page.slices++;
            payload.getBytes(payload.readerIndex(), slice.duplicate());
            queue.add(new RemoteBuffer(this, stream.channels[channel], page, slice));
            if (stream.room == 0) {
                // Full: nothing more lands in it, so it goes back once read. Kept attached until
                // the stream's next page came, a read page held the credit that page needed.
                stream.detachCurrentLocked();
            }
            queueBytes += length;
            stream.backlog = backlog;
            wantLocked(stream);
            availability.complete(null);
            grants = grantLocked(stream);
        }
        sendGrants(grants);
    }

    /**
     * A FRAMES piece arrived for {@code stream} with {@code backlog} pages waiting behind it: its
     * frames are opened by {@code opener} into the next page of the stream's credit (a piece always
     * takes a page of its own), one buffer per group, and queued. The page is this call's alone
     * while the frames are opened, so the gate's lock is not held meanwhile. A corrupt frame fails
     * the gate with {@link PartitionLostException} for the group's partition.
     *
     * @throws ProtocolException if a group is malformed or names a channel that is not the
     *     stream's, or the piece exceeds the stream's credit or a page
     */
    void receiveFrames(Stream stream, int backlog, ByteBuf body, FrameOpener opener) {
        Page page;
        synchronized (this) {
            if (closed || failure != null || stream.ended) {
                return;
            }
            page = stream.credit.poll();
            if (page == null) {
                throw new ProtocolException("FRAMES beyond the stream's credit");
            }
            stream.detachCurrentLocked();
        }
        RemotePage remote = new RemotePage(page);
        List<RemoteBuffer> opened = new ArrayList<>(2);
        PartitionLostException corrupt = null;
        try {
            openGroups(stream, body, opener, remote, opened);
        } catch (PartitionLostException e) {
            corrupt = e;
            opened.clear();
        } catch (RuntimeException e) {
            synchronized (this) {
                recycleLocked(page);
            }
            throw e;
        }
        int written = 0;
        for (RemoteBuffer buffer : opened) {
            written += buffer.data().remaining();
        }
        List<Stream> grants;
        synchronized (this) {
            remote.detached = true;
            if (closed || failure != null || opened.isEmpty()) {
                recycleLocked(page);
            } else {
                remote.slices = opened.size();
                queue.addAll(opened);
                queueBytes += written;
                availability.complete(null);
            }
            stream.backlog = backlog;
            wantLocked(stream);
            grants = grantLocked(stream);
        }
        sendGrants(grants);
        if (corrupt != null) {
            fail(corrupt);
        }
        closeOwnerIfIdle();
    }

    /**
     * Opens the groups of a FRAMES body into {@code page}, back to back, adding a buffer per group
     * with a payload to {@code opened}.
     */
    private void openGroups(
            Stream stream,
            ByteBuf body,
            FrameOpener opener,
            RemotePage page,
            List<RemoteBuffer> opened)
            throws PartitionLostException {
        int written = 0;
        while (body.isReadable()) {
            if (body.readableBytes() < Wire.GROUP_HEADER) {
                throw new ProtocolException("a FRAMES group header is cut off");
            }
            int channel = body.readInt();
            long position = body.readLong();
            int bytes = body.readInt();
            if (channel < 0 || channel >= stream.channels.length) {
                throw new ProtocolException(
                        "FRAMES for channel "
                                + channel
                                + " of a stream of "
                                + stream.channels.length);
            }
            if (bytes < Wire.MIN_FILE_FRAME || bytes > body.readableBytes()) {
                throw new ProtocolException(
                        "a FRAMES group of " + bytes + " bytes in " + body.readableBytes());
            }
            ByteBuffer into = page.page.buffer();
            int length =
                    opener.open(body, bytes, stream.partitions[channel], position, into, written);
            body.skipBytes(bytes);
            if (length > 0) {
                ByteBuffer slice = into.slice(written, length);
                opened.add(new RemoteBuffer(this, stream.channels[channel], page, slice));
                written += length;
            }
        }
    }

    /** {@code stream}'s server has {@code backlog} pages waiting and no credit. */
    void backlog(Stream stream, int backlog) {
        List<Stream> grants;
        synchronized (this) {
            if (closed || failure != null || stream.ended) {
                return;
            }
            stream.backlog = backlog;
            wantLocked(stream);
            grants = grantLocked();
        }
        sendGrants(grants);
    }

    /** {@code stream} sent everything. */
    void ended(Stream stream) {
        List<Stream> grants;
        synchronized (this) {
            if (stream.ended) {
                return;
            }
            stream.ended = true;
            streamsEnded++;
            stream.dropCreditLocked();
            stream.detachCurrentLocked();
            if (isFinishedLocked() || !queue.isEmpty()) {
                availability.complete(null);
            }
            grants = grantLocked();
        }
        sendGrants(grants);
        closeOwnerIfIdle();
    }

    /**
     * The gate fails with {@code cause} (a {@link PartitionLostException}, wrapped, or an {@link
     * IllegalStateException}) unless it failed or closed before; its other streams are cancelled.
     */
    void fail(Exception cause) {
        synchronized (this) {
            if (closed || failure != null) {
                return;
            }
            failure =
                    cause instanceof PartitionLostException lost
                            ? new LostPartition(lost)
                            : cause instanceof RuntimeException runtime
                                    ? runtime
                                    : new IllegalStateException(cause.getMessage(), cause);
            wanting.clear();
            for (Stream stream : streams) {
                stream.dropCreditLocked();
            }
            dropSpareLocked();
            availability.complete(null);
        }
        cancelStreams();
        closeOwnerIfIdle();
    }

    // ---- credit ----

    @GuardedBy("this")
    private void wantLocked(Stream stream) {
        if (!stream.queued && stream.wants()) {
            stream.queued = true;
            wanting.add(stream);
        }
    }

    /**
     * Grants pages to streams that want them while the gate holds fewer than its pages; returns the
     * streams to tell now (their {@code granted} counts): those given pages, and {@code received}
     * (whose data just used a page of credit), each if {@link Stream#shouldTell()}. Asks the pool
     * for a page within the guarantee when it has none to give at once; its arrival grants again.
     */
    @GuardedBy("this")
    private List<Stream> grantLocked(@Nullable Stream received) {
        List<Stream> given = List.of(); // allocated only when a stream is told
        if (received != null && received.shouldTell()) {
            given = new ArrayList<>(2);
            given.add(received);
        }
        while (!closed && failure == null && !wanting.isEmpty()) {
            Stream stream = wanting.peek();
            if (stream.ended || !stream.wants()) {
                wanting.poll();
                stream.queued = false;
                continue;
            }
            Page page = spare;
            if (page != null) {
                spare = null;
            } else {
                if (pagesHeld >= capacity) {
                    break;
                }
                page = owner.tryRequest();
                if (page == null) {
                    requestPageLocked();
                    break;
                }
                pagesHeld++;
            }
            stream.credit.add(page);
            stream.granted++;
            wanting.poll();
            stream.queued = false;
            wantLocked(stream); // round-robin: to the back, if it wants more
            if (stream.shouldTell() && !given.contains(stream)) {
                if (given.isEmpty()) {
                    given = new ArrayList<>(2);
                }
                given.add(stream);
            }
        }
        return given;
    }

    @GuardedBy("this")
    private List<Stream> grantLocked() {
        return grantLocked(null);
    }

    @GuardedBy("this")
    private void requestPageLocked() {
        if (requesting || pagesHeld >= capacity) {
            return;
        }
        requesting = true;
        pagesHeld++;
        var unused =
                owner.request(1)
                        .whenComplete(
                                (pages, error) -> {
                                    List<Stream> grants;
                                    synchronized (this) {
                                        requesting = false;
                                        if (error != null || pages == null || pages.isEmpty()) {
                                            pagesHeld--;
                                            return;
                                        }
                                        spare = pages.get(0);
                                        if (closed || failure != null) {
                                            dropSpareLocked();
                                        }
                                        grants = grantLocked();
                                    }
                                    sendGrants(grants);
                                    closeOwnerIfIdle();
                                });
    }

    @GuardedBy("this")
    private void dropSpareLocked() {
        Page page = spare;
        if (page != null) {
            spare = null;
            recycleLocked(page);
        }
    }

    private void sendGrants(List<Stream> grants) {
        for (Stream stream : grants) {
            int pages;
            synchronized (this) {
                pages = stream.granted;
                stream.granted = 0;
            }
            if (pages > 0) {
                stream.connection.credit(stream, pages);
            }
        }
    }

    @GuardedBy("this")
    private void recycleLocked(Page page) {
        pagesHeld--;
        owner.recycle(page);
    }

    /** A slice of {@code page} was recycled. */
    void release(RemotePage page) {
        List<Stream> grants;
        synchronized (this) {
            page.slices--;
            if (page.slices == 0 && page.detached) {
                recycleLocked(page.page);
            }
            grants = grantLocked();
        }
        sendGrants(grants);
        closeOwnerIfIdle();
    }

    private void closeOwnerIfIdle() {
        synchronized (this) {
            if ((closed || failure != null || isFinishedLocked()) && pagesHeld == 0) {
                owner.close();
            }
        }
    }

    /** A page of a stream, shared by the buffers sliced out of it; guarded by the gate. */
    static final class RemotePage {
        final Page page;
        int slices;
        boolean detached;

        RemotePage(Page page) {
            this.page = page;
        }
    }

    /** One stream of the gate: its credit and the page its data lands in; guarded by the gate. */
    static final class Stream {
        final RemoteInputGate gate;
        final ClientConnection connection;
        final PartitionId[] partitions;
        final int[] channels;
        final int subpartition;
        final JobId job;
        final JobSecret secret;
        final ArrayDeque<Page> credit = new ArrayDeque<>(MAX_CREDIT);

        /** The stream's id on its connection; set by the connection's event loop. */
        int id;

        @Nullable RemotePage current;
        int room;
        int backlog;
        int granted;
        boolean queued;
        boolean ended;

        Stream(
                RemoteInputGate gate,
                ClientConnection connection,
                PartitionId[] partitions,
                int[] channels,
                int subpartition,
                JobId job,
                JobSecret secret) {
            this.gate = gate;
            this.connection = connection;
            this.partitions = partitions;
            this.channels = channels;
            this.subpartition = subpartition;
            this.job = job;
            this.secret = secret;
        }

        /**
         * Whether the stream needs another page of credit: it holds fewer unused pages than the
         * pages of data its server said wait beyond its current page. Never more: a page granted
         * where no data waits would idle while another stream of the gate starves for it.
         */
        boolean wants() {
            return !ended && credit.size() < Math.min(backlog, MAX_CREDIT);
        }

        /**
         * Whether to tell the server of the pages granted since it was last told: once they are
         * {@value #CREDIT_BATCH}, or once the credit it was told of and has not used up is less
         * than that (so it never waits for a batch while it could send). One CREDIT message per
         * batch rather than per page: a message and a wake-up less on each side per page.
         */
        boolean shouldTell() {
            return granted > 0
                    && (granted >= CREDIT_BATCH || credit.size() - granted < CREDIT_BATCH);
        }

        void dropCreditLocked() {
            Page page;
            while ((page = credit.poll()) != null) {
                gate.recycleLockedFor(page);
            }
            detachCurrentLocked();
        }

        void detachCurrentLocked() {
            RemotePage page = current;
            if (page != null) {
                current = null;
                room = 0;
                page.detached = true;
                if (page.slices == 0) {
                    gate.recycleLockedFor(page.page);
                }
            }
        }
    }

    @SuppressWarnings("GuardedBy") // called by a stream under this gate's lock
    private void recycleLockedFor(Page page) {
        recycleLocked(page);
    }

    /** A failure that is a lost partition, kept unchecked in the failure field. */
    private static final class LostPartition extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient PartitionLostException exception;

        LostPartition(PartitionLostException exception) {
            super(exception.getMessage(), exception, false, false);
            this.exception = exception;
        }

        PartitionLostException exception() {
            return exception;
        }
    }

    /** A buffer of one channel: a slice of a stream's page. */
    static final class RemoteBuffer implements InputGate.Buffer {
        private final RemoteInputGate gate;
        private final int channel;
        private final RemotePage page;
        private final ByteBuffer data;

        @GuardedBy("this")
        private boolean recycled;

        RemoteBuffer(RemoteInputGate gate, int channel, RemotePage page, ByteBuffer data) {
            this.gate = gate;
            this.channel = channel;
            this.page = page;
            this.data = data;
        }

        @Override
        public int channel() {
            return channel;
        }

        @Override
        public ByteBuffer data() {
            return data;
        }

        @Override
        public void recycle() {
            synchronized (this) {
                if (recycled) {
                    throw new IllegalStateException(
                            "buffer of channel " + channel + " recycled twice");
                }
                recycled = true;
            }
            gate.release(page);
        }
    }
}
