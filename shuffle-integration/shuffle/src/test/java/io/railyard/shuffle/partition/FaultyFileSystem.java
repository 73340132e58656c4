package io.railyard.shuffle.partition;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.AccessMode;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.StandardOpenOption;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.nio.file.spi.FileSystemProvider;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * An in-memory file system (Jimfs underneath) whose file channels fail the way a disk does, for the
 * faults a full disk cannot show (ARCHITECTURE.md, Reliability rows 20 and 22): short writes,
 * {@code EIO} on a write, on {@code force} or on {@code close}, {@code EACCES} when a file is
 * opened for reading, {@code EIO} on a read. Faults apply to the files whose name the {@link
 * #target} predicate accepts; everything else passes through. It also counts, per file, the bytes
 * its channels really accepted, so a test can compare them with the bytes an error names.
 *
 * <p>A path of this file system wraps a Jimfs path; the provider unwraps every argument, so the
 * code under test sees an ordinary {@link FileSystem}. Thread-safe: the switches are volatile.
 */
final class FaultyFileSystem implements Closeable {
    /** What {@code strerror(EIO)} says, as the JDK's channels report it. */
    static final String EIO = "Input/output error";

    private final FileSystem jimfs;
    private final Fs fs;
    private final Map<String, Long> accepted = new ConcurrentHashMap<>();
    private final AtomicInteger forceCalls = new AtomicInteger();

    private volatile Predicate<String> target = name -> false;
    private volatile int maxBytesPerWrite = Integer.MAX_VALUE;
    private volatile long writeFailsAfterBytes = Long.MAX_VALUE;
    private volatile boolean eioOnForce;
    private volatile boolean eioOnClose;
    private volatile boolean eaccesOnOpenForRead;
    private volatile boolean eioOnRead;
    private final AtomicReference<CountDownLatch @Nullable []> hold = new AtomicReference<>();

    FaultyFileSystem() {
        this.jimfs = Jimfs.newFileSystem(Configuration.unix());
        this.fs = new Fs(new Provider());
    }

    /** A path of this file system, e.g. {@code path("/shuffle")}. */
    Path path(String first, String... more) {
        return fs.getPath(first, more);
    }

    /** Faults apply to files whose name (the last element) {@code names} accepts. */
    FaultyFileSystem target(Predicate<String> names) {
        this.target = names;
        return this;
    }

    /**
     * A write call accepts at most {@code maxBytes} (a short write), and once a file holds {@code
     * failAfterBytes} written bytes, the next write fails with {@code EIO}.
     */
    FaultyFileSystem shortWritesThenEio(int maxBytes, long failAfterBytes) {
        this.maxBytesPerWrite = maxBytes;
        this.writeFailsAfterBytes = failAfterBytes;
        return this;
    }

    /** {@code force} fails with {@code EIO}. */
    FaultyFileSystem eioOnForce() {
        this.eioOnForce = true;
        return this;
    }

    /** {@code close} fails with {@code EIO} (after closing: a channel is released either way). */
    FaultyFileSystem eioOnClose() {
        this.eioOnClose = true;
        return this;
    }

    /** Opening a file for reading fails with {@code EACCES} ({@link AccessDeniedException}). */
    FaultyFileSystem eaccesOnOpenForRead() {
        this.eaccesOnOpenForRead = true;
        return this;
    }

    /** Every read fails with {@code EIO}. */
    FaultyFileSystem eioOnRead() {
        this.eioOnRead = true;
        return this;
    }

    /**
     * The next write to a targeted file counts {@code entered} down and waits (up to 30 s) for
     * {@code proceed}, then goes on: a test holds a writer inside its write.
     */
    FaultyFileSystem holdNextWrite(CountDownLatch entered, CountDownLatch proceed) {
        this.hold.set(new CountDownLatch[] {entered, proceed});
        return this;
    }

    /** Bytes write calls accepted for {@code file}, over every channel that wrote it. */
    long bytesAccepted(Path file) {
        return accepted.getOrDefault(file.toString(), 0L);
    }

    /** Bytes write calls accepted for every file. */
    long bytesAcceptedByAll() {
        long sum = 0;
        for (long bytes : accepted.values()) {
            sum += bytes;
        }
        return sum;
    }

    /** Calls of {@code force} on any channel of this file system. */
    int forceCalls() {
        return forceCalls.get();
    }

    @Override
    public void close() throws IOException {
        jimfs.close();
    }

    private boolean targets(Path file) {
        Path name = file.getFileName();
        return name != null && target.test(name.toString());
    }

    /** An {@code EIO} as the JDK reports it: the message names no file. */
    private static IOException eio() {
        return new IOException(EIO);
    }

    private static Path unwrap(Path path) {
        if (path instanceof FaultyPath faulty) {
            return faulty.delegate;
        }
        throw new java.nio.file.ProviderMismatchException("not a faulty path: " + path);
    }

    /** A channel over Jimfs's that fails as configured when its file is a target. */
    private final class FaultyChannel extends ForwardingFileChannel {
        private final Path path;
        private final boolean faulty;

        FaultyChannel(FileChannel file, Path path) {
            super(file);
            this.path = path;
            this.faulty = targets(path);
        }

        /** Bytes the next write may accept of {@code wanted}; throws EIO when none may. */
        private int allowance(long wanted) throws IOException {
            if (!faulty) {
                return (int) Math.min(wanted, Integer.MAX_VALUE);
            }
            long room = writeFailsAfterBytes - accepted.getOrDefault(path.toString(), 0L);
            if (room <= 0 && wanted > 0) {
                throw eio();
            }
            return (int) Math.min(Math.min(wanted, room), maxBytesPerWrite);
        }

        private int count(int written) {
            accepted.merge(path.toString(), (long) written, Long::sum);
            return written;
        }

        /** Holds this write if a test asked ({@link #holdNextWrite}). */
        private void holdIfAsked() throws IOException {
            CountDownLatch[] latches = hold.getAndSet(null);
            if (latches == null) {
                return;
            }
            latches[0].countDown();
            try {
                if (!latches[1].await(30, TimeUnit.SECONDS)) {
                    throw new IOException("held write not released in 30 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("held write interrupted");
            }
        }

        private int writeSome(ByteBuffer source, long position) throws IOException {
            holdIfAsked();
            int allowed = allowance(source.remaining());
            ByteBuffer part = source.duplicate();
            part.limit(part.position() + allowed);
            int written = position < 0 ? file.write(part) : file.write(part, position);
            source.position(source.position() + written);
            return count(written);
        }

        @Override
        public int write(ByteBuffer source) throws IOException {
            return writeSome(source, -1);
        }

        @Override
        public int write(ByteBuffer source, long position) throws IOException {
            return writeSome(source, position);
        }

        @Override
        public long write(ByteBuffer[] sources, int offset, int length) throws IOException {
            if (!faulty) {
                long written = file.write(sources, offset, length);
                accepted.merge(path.toString(), written, Long::sum);
                return written;
            }
            for (int i = offset; i < offset + length; i++) {
                if (sources[i].hasRemaining()) {
                    return writeSome(sources[i], -1); // a gathering write may stop short
                }
            }
            return 0;
        }

        private void checkRead() throws IOException {
            if (faulty && eioOnRead) {
                throw eio();
            }
        }

        @Override
        public int read(ByteBuffer target) throws IOException {
            checkRead();
            return file.read(target);
        }

        @Override
        public long read(ByteBuffer[] targets, int offset, int length) throws IOException {
            checkRead();
            return file.read(targets, offset, length);
        }

        @Override
        public int read(ByteBuffer target, long position) throws IOException {
            checkRead();
            return file.read(target, position);
        }

        @Override
        public void force(boolean metaData) throws IOException {
            forceCalls.incrementAndGet();
            if (faulty && eioOnForce) {
                throw eio();
            }
            file.force(metaData);
        }

        @Override
        public long transferTo(long position, long count, WritableByteChannel target)
                throws IOException {
            checkRead();
            return file.transferTo(position, count, target);
        }

        @Override
        public long transferFrom(ReadableByteChannel source, long position, long count)
                throws IOException {
            throw new UnsupportedOperationException("partition files are written from pages");
        }

        @Override
        protected void implCloseChannel() throws IOException {
            file.close();
            if (faulty && eioOnClose) {
                throw eio();
            }
        }
    }

    /** The provider: unwraps paths, delegates to Jimfs, and wraps file channels. */
    private final class Provider extends FileSystemProvider {
        private FileSystemProvider jimfsProvider() {
            return jimfs.provider();
        }

        @Override
        public String getScheme() {
            return "faulty";
        }

        @Override
        public FileSystem newFileSystem(URI uri, Map<String, ?> env) {
            throw new UnsupportedOperationException("one file system per FaultyFileSystem");
        }

        @Override
        public FileSystem getFileSystem(URI uri) {
            return fs;
        }

        @Override
        public Path getPath(URI uri) {
            throw new UnsupportedOperationException("paths come from FaultyFileSystem.path");
        }

        @Override
        public FileChannel newFileChannel(
                Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
                throws IOException {
            Path inner = unwrap(path);
            if (eaccesOnOpenForRead
                    && targets(inner)
                    && !options.contains(StandardOpenOption.WRITE)) {
                throw new AccessDeniedException(path.toString(), null, "injected EACCES");
            }
            return new FaultyChannel(jimfsProvider().newFileChannel(inner, options, attrs), inner);
        }

        @Override
        public SeekableByteChannel newByteChannel(
                Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
                throws IOException {
            return newFileChannel(path, options, attrs);
        }

        @Override
        public DirectoryStream<Path> newDirectoryStream(
                Path dir, DirectoryStream.Filter<? super Path> filter) throws IOException {
            DirectoryStream<Path> inner =
                    jimfsProvider()
                            .newDirectoryStream(
                                    unwrap(dir), entry -> filter.accept(new FaultyPath(fs, entry)));
            return new DirectoryStream<>() {
                @Override
                public Iterator<Path> iterator() {
                    Iterator<Path> entries = inner.iterator();
                    return new Iterator<>() {
                        @Override
                        public boolean hasNext() {
                            return entries.hasNext();
                        }

                        @Override
                        public Path next() {
                            return new FaultyPath(fs, entries.next());
                        }
                    };
                }

                @Override
                public void close() throws IOException {
                    inner.close();
                }
            };
        }

        @Override
        public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
            jimfsProvider().createDirectory(unwrap(dir), attrs);
        }

        @Override
        public void delete(Path path) throws IOException {
            jimfsProvider().delete(unwrap(path));
        }

        @Override
        public void copy(Path source, Path target, CopyOption... options) throws IOException {
            jimfsProvider().copy(unwrap(source), unwrap(target), options);
        }

        @Override
        public void move(Path source, Path target, CopyOption... options) throws IOException {
            jimfsProvider().move(unwrap(source), unwrap(target), options);
        }

        @Override
        public boolean isSameFile(Path path, Path path2) throws IOException {
            return jimfsProvider().isSameFile(unwrap(path), unwrap(path2));
        }

        @Override
        public boolean isHidden(Path path) throws IOException {
            return jimfsProvider().isHidden(unwrap(path));
        }

        @Override
        public FileStore getFileStore(Path path) throws IOException {
            return jimfsProvider().getFileStore(unwrap(path));
        }

        @Override
        public void checkAccess(Path path, AccessMode... modes) throws IOException {
            jimfsProvider().checkAccess(unwrap(path), modes);
        }

        @Override
        public <V extends FileAttributeView> @Nullable V getFileAttributeView(
                Path path, Class<V> type, LinkOption... options) {
            return jimfsProvider().getFileAttributeView(unwrap(path), type, options);
        }

        @Override
        public <A extends BasicFileAttributes> A readAttributes(
                Path path, Class<A> type, LinkOption... options) throws IOException {
            return jimfsProvider().readAttributes(unwrap(path), type, options);
        }

        @Override
        public Map<String, Object> readAttributes(
                Path path, String attributes, LinkOption... options) throws IOException {
            return jimfsProvider().readAttributes(unwrap(path), attributes, options);
        }

        @Override
        public void setAttribute(Path path, String attribute, Object value, LinkOption... options)
                throws IOException {
            jimfsProvider().setAttribute(unwrap(path), attribute, value, options);
        }
    }

    /** The file system: Jimfs's, its paths wrapped. */
    private final class Fs extends FileSystem {
        private final Provider provider;

        Fs(Provider provider) {
            this.provider = provider;
        }

        @Override
        public FileSystemProvider provider() {
            return provider;
        }

        @Override
        public void close() throws IOException {
            jimfs.close();
        }

        @Override
        public boolean isOpen() {
            return jimfs.isOpen();
        }

        @Override
        public boolean isReadOnly() {
            return false;
        }

        @Override
        public String getSeparator() {
            return jimfs.getSeparator();
        }

        @Override
        public Iterable<Path> getRootDirectories() {
            List<Path> roots = new ArrayList<>();
            for (Path root : jimfs.getRootDirectories()) {
                roots.add(new FaultyPath(this, root));
            }
            return roots;
        }

        @Override
        public Iterable<FileStore> getFileStores() {
            return jimfs.getFileStores();
        }

        @Override
        public Set<String> supportedFileAttributeViews() {
            return jimfs.supportedFileAttributeViews();
        }

        @Override
        public Path getPath(String first, String... more) {
            return new FaultyPath(this, jimfs.getPath(first, more));
        }

        @Override
        public PathMatcher getPathMatcher(String syntaxAndPattern) {
            PathMatcher inner = jimfs.getPathMatcher(syntaxAndPattern);
            return path -> inner.matches(unwrap(path));
        }

        @Override
        public UserPrincipalLookupService getUserPrincipalLookupService() {
            return jimfs.getUserPrincipalLookupService();
        }

        @Override
        public WatchService newWatchService() {
            throw new UnsupportedOperationException("no watching");
        }
    }

    /** A path of {@link Fs}: a Jimfs path, every path it returns wrapped again. */
    private static final class FaultyPath implements Path {
        private final FileSystem fs;
        private final Path delegate;

        FaultyPath(FileSystem fs, Path delegate) {
            this.fs = fs;
            this.delegate = delegate;
        }

        private @Nullable Path wrap(@Nullable Path path) {
            return path == null ? null : new FaultyPath(fs, path);
        }

        @Override
        public FileSystem getFileSystem() {
            return fs;
        }

        @Override
        public boolean isAbsolute() {
            return delegate.isAbsolute();
        }

        @Override
        public @Nullable Path getRoot() {
            return wrap(delegate.getRoot());
        }

        @Override
        public @Nullable Path getFileName() {
            return wrap(delegate.getFileName());
        }

        @Override
        public @Nullable Path getParent() {
            return wrap(delegate.getParent());
        }

        @Override
        public int getNameCount() {
            return delegate.getNameCount();
        }

        @Override
        public Path getName(int index) {
            return new FaultyPath(fs, delegate.getName(index));
        }

        @Override
        public Path subpath(int beginIndex, int endIndex) {
            return new FaultyPath(fs, delegate.subpath(beginIndex, endIndex));
        }

        @Override
        public boolean startsWith(Path other) {
            return other instanceof FaultyPath p && delegate.startsWith(p.delegate);
        }

        @Override
        public boolean endsWith(Path other) {
            return other instanceof FaultyPath p && delegate.endsWith(p.delegate);
        }

        @Override
        public Path normalize() {
            return new FaultyPath(fs, delegate.normalize());
        }

        @Override
        public Path resolve(Path other) {
            return new FaultyPath(fs, delegate.resolve(unwrap(other)));
        }

        @Override
        public Path relativize(Path other) {
            return new FaultyPath(fs, delegate.relativize(unwrap(other)));
        }

        @Override
        public URI toUri() {
            return delegate.toUri();
        }

        @Override
        public Path toAbsolutePath() {
            return new FaultyPath(fs, delegate.toAbsolutePath());
        }

        @Override
        public Path toRealPath(LinkOption... options) throws IOException {
            return new FaultyPath(fs, delegate.toRealPath(options));
        }

        @Override
        public WatchKey register(
                WatchService watcher,
                WatchEvent.Kind<?>[] events,
                WatchEvent.Modifier... modifiers) {
            throw new UnsupportedOperationException("no watching");
        }

        @Override
        public int compareTo(Path other) {
            return delegate.compareTo(unwrap(other));
        }

        @Override
        public boolean equals(@Nullable Object other) {
            return other instanceof FaultyPath p && p.fs == fs && p.delegate.equals(delegate);
        }

        @Override
        public int hashCode() {
            return delegate.hashCode();
        }

        @Override
        public String toString() {
            return delegate.toString();
        }
    }
}
