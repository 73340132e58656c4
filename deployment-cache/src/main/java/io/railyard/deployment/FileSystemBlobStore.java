package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
import static java.nio.file.LinkOption.NOFOLLOW_LINKS;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;

import com.google.common.collect.HashMultiset;
import com.google.common.collect.ImmutableSet;
import com.google.common.collect.Multiset;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.jspecify.annotations.Nullable;

/**
 * A {@link BlobStore} in a directory of any {@link java.nio.file.FileSystem} (the default one, or
 * an in-memory one in tests). Open it with {@link #open(Path)}.
 *
 * <h2>Layout</h2>
 *
 * <pre>
 * root/railyard-blob-store       marker: this directory belongs to a blob store
 * root/blobs/3a/3a7b…(64 hex)    one file per blob, named by its key, in a shard of its first 2 digits
 * root/tmp/3a7b….17.tmp          a write in flight; moved into blobs/ once complete
 * </pre>
 *
 * <p>({@link FileSystemBlobStoreLayout} knows these paths and checks them without following links.)
 *
 * <h2>Design notes</h2>
 *
 * <b>Writes</b> go to a uniquely named file in {@code tmp/}, are forced to disk and then moved into
 * place with {@link StandardCopyOption#ATOMIC_MOVE}: a reader sees a complete blob or none. A
 * failed write deletes its temp file and names the target, the byte count and the cause (a full
 * disk says so). Writing happens outside the lock, so a large put does not stall other threads.
 *
 * <p><b>Reads</b> never follow symbolic links: the shard directory and the blob file are checked
 * with {@link java.nio.file.LinkOption#NOFOLLOW_LINKS} and the file is opened with it; a link (or a
 * directory) in their place is rejected unread. A file larger than {@link #maxBlobSizeBytes()} is
 * rejected before anything is allocated. Every read is verified against its key (SHA-256); a
 * mismatch deletes the blob and throws {@link CorruptBlobException}. So a blob whose content does
 * not match its name is never served.
 *
 * <p><b>References</b> live in memory, per job and key, and are lost with the process. Every blob
 * on disk at {@link #open} is therefore unreferenced, and the {@link BlobStore} contract deletes
 * unreferenced blobs: opening a store deletes everything under {@code blobs/} and {@code tmp/}
 * (links are deleted, never followed; their targets are untouched). This is the cheap way to meet
 * "after a restart the store holds only verified blobs": O(files) metadata operations instead of
 * reading every blob to verify it, and no orphans that no job could ever release. The cost is that
 * content put again after a restart is written again (it is hashed again anyway). Because startup
 * deletes, it refuses a non-empty directory that lacks the marker file (it may be someone else's).
 *
 * <p><b>Threading.</b> Thread-safe. One {@link ReentrantReadWriteLock} per store, never nested with
 * another lock: gets (reading and hashing) share it; reference changes and every change of a blob
 * path (move into place, deletion) take it exclusively. A reader therefore never sees a blob
 * deleted or replaced halfway. Hashing and temp-file writes of a put run outside the lock.
 *
 * <p><b>Ownership.</b> One store instance (one process) per directory, and only the store writes
 * below it: two stores on one directory would delete each other's files at startup and keep
 * separate reference counts. So {@link #open} takes an OS lock on the marker file before it deletes
 * anything, writes its process id there, and holds the lock until {@link #close} (or until the
 * process dies: the OS drops it then); a second store on the directory — in another process or in
 * this one — is refused with one line naming the directory and the holder's process id.
 */
public final class FileSystemBlobStore implements BlobStore, AutoCloseable {
    /** Default of {@link #maxBlobSizeBytes()}: 256 MiB. */
    public static final int DEFAULT_MAX_BLOB_SIZE_BYTES = 256 << 20;

    /** The largest allowed {@link #maxBlobSizeBytes()}: the largest byte array a JVM allocates. */
    public static final int MAX_BLOB_SIZE_LIMIT = Integer.MAX_VALUE - 8;

    /** Name of the file that marks a directory as a blob store's root. */
    public static final String MARKER_FILE = FileSystemBlobStoreLayout.MARKER_FILE;

    private static final System.Logger LOG = System.getLogger(FileSystemBlobStore.class.getName());

    private final FileSystemBlobStoreLayout layout;
    private final int maxBlobSizeBytes;
    private final AtomicLong tempFileCounter = new AtomicLong();
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Ownership ownership;

    // Guarded by lock (written under the write lock). Invariant: references is the sum of the
    // multisets in referencesByJob, and no multiset in referencesByJob is empty.
    private final Map<JobId, Multiset<BlobKey>> referencesByJob = new HashMap<>();
    private final Multiset<BlobKey> references = HashMultiset.create();

    private FileSystemBlobStore(
            FileSystemBlobStoreLayout layout, int maxBlobSizeBytes, Ownership ownership) {
        this.layout = layout;
        this.maxBlobSizeBytes = maxBlobSizeBytes;
        this.ownership = ownership;
    }

    /**
     * Opens the store in {@code root} with blobs of at most {@link #DEFAULT_MAX_BLOB_SIZE_BYTES}.
     *
     * @see #open(Path, int)
     */
    public static FileSystemBlobStore open(Path root) throws IOException {
        return open(root, DEFAULT_MAX_BLOB_SIZE_BYTES);
    }

    /**
     * Opens the store in {@code root}, creating the directory if needed, and deletes what an
     * earlier process left there: temp files of interrupted writes and blobs whose references died
     * with that process (see the class notes). O(files left) metadata operations; reads no blob.
     *
     * @param maxBlobSizeBytes the largest blob that {@link #put} accepts and {@link #get} reads
     * @throws IllegalArgumentException if {@code maxBlobSizeBytes} is not in [1, {@link
     *     #MAX_BLOB_SIZE_LIMIT}]
     * @throws IOException if another store holds the directory (the message names it and the
     *     holder's process id; nothing is deleted), if {@code root} is not empty and lacks the
     *     {@link #MARKER_FILE}, if {@code blobs} or {@code tmp} below it is not a directory (for
     *     example a symbolic link), or if the directories cannot be created or cleaned
     */
    public static FileSystemBlobStore open(Path root, int maxBlobSizeBytes) throws IOException {
        checkArgument(
                maxBlobSizeBytes >= 1 && maxBlobSizeBytes <= MAX_BLOB_SIZE_LIMIT,
                "maxBlobSizeBytes must be in [1, %s] (a blob is read into one byte array), was %s",
                MAX_BLOB_SIZE_LIMIT,
                maxBlobSizeBytes);
        FileSystemBlobStoreLayout layout = FileSystemBlobStoreLayout.claim(root);
        Ownership ownership = Ownership.take(layout.root); // before anything is deleted
        int staleTempFiles;
        int orphanBlobs;
        try {
            staleTempFiles = FileSystemBlobStoreLayout.emptyDirectory(layout.tempDirectory);
            orphanBlobs = FileSystemBlobStoreLayout.emptyDirectory(layout.blobsDirectory);
        } catch (IOException | RuntimeException e) {
            ownership.close();
            throw e;
        }
        LOG.log(
                staleTempFiles + orphanBlobs > 0 ? Level.INFO : Level.DEBUG,
                "Opened blob store {0}: deleted {1} stale temp files and {2} blob files left by an"
                        + " earlier process (blob references do not survive it)",
                root,
                staleTempFiles,
                orphanBlobs);
        return new FileSystemBlobStore(layout, maxBlobSizeBytes, ownership);
    }

    /**
     * Releases the directory: another store may open it from now on (and will delete the blobs this
     * one leaves, whose references go with this store). Blob files are not touched; the store must
     * not be used after. Idempotent.
     */
    @Override
    public void close() throws IOException {
        lock.writeLock().lock();
        try {
            BlobReferences.add(-references.size());
            references.clear();
            referencesByJob.clear();
        } finally {
            lock.writeLock().unlock();
        }
        ownership.close();
    }

    /** The OS lock on a store's marker file that makes it the directory's only store. */
    private static final class Ownership {
        private static final int MAX_HOLDER_BYTES = 64;
        private final FileChannel channel;

        private Ownership(FileChannel channel) {
            this.channel = channel;
        }

        /**
         * Locks {@code root}'s marker file and writes this process's id into it.
         *
         * @throws IOException if another store holds it, naming the directory and the holder
         */
        static Ownership take(Path root) throws IOException {
            Path marker = root.resolve(MARKER_FILE);
            FileChannel channel = FileChannel.open(marker, READ, WRITE, NOFOLLOW_LINKS);
            try {
                FileLock held;
                try {
                    held = channel.tryLock();
                } catch (OverlappingFileLockException e) {
                    held = null; // a store of this process holds it
                }
                if (held == null) {
                    throw new IOException(
                            "the blob store in "
                                    + root
                                    + " is in use by "
                                    + holder(channel)
                                    + " (it holds the lock on "
                                    + marker
                                    + "); a directory holds one store at a time: close that"
                                    + " store, or give this one another directory");
                }
                byte[] pid =
                        ("process " + ProcessHandle.current().pid() + "\n")
                                .getBytes(StandardCharsets.US_ASCII);
                channel.truncate(0);
                channel.write(ByteBuffer.wrap(pid), 0);
                return new Ownership(channel);
            } catch (IOException | RuntimeException e) {
                channel.close();
                throw e;
            }
        }

        /** Who holds the lock, as it wrote into the marker ("process 1234"). */
        private static String holder(FileChannel channel) throws IOException {
            ByteBuffer read = ByteBuffer.allocate(MAX_HOLDER_BYTES);
            channel.read(read, 0);
            String written =
                    new String(read.array(), 0, read.position(), StandardCharsets.US_ASCII);
            return written.isBlank() ? "another process" : written.strip();
        }

        void close() throws IOException {
            channel.close(); // releases the lock
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>O(n) to hash {@code n} bytes; if the content is new, also O(n) to write it (outside the
     * lock) and one forced write plus one atomic move. Allocates the key.
     *
     * @throws IllegalArgumentException if {@code content} is longer than {@link
     *     #maxBlobSizeBytes()}
     * @throws IOException if the content cannot be written (the message names the target path, the
     *     bytes to write and written, and the cause, "no space left" for a full disk; the temp file
     *     is deleted), or if a symbolic link or a directory stands where the blob belongs
     */
    @Override
    public BlobKey put(JobId job, byte[] content) throws IOException {
        checkArgument(
                content.length <= maxBlobSizeBytes,
                "a blob of %s bytes (job %s) is larger than maxBlobSizeBytes = %s of the blob store"
                        + " in %s; open the store with a larger limit",
                content.length,
                job,
                maxBlobSizeBytes,
                layout.root);
        BlobKey key = keyOf(content);
        Path target = blobPath(key);
        lock.writeLock().lock();
        try {
            if (layout.isStored(key)) {
                addReference(job, key);
                return key;
            }
        } finally {
            lock.writeLock().unlock();
        }
        Path temp = writeTemp(key, content, target);
        lock.writeLock().lock();
        try {
            moveIntoPlace(key, content.length, temp, target);
            addReference(job, key);
        } finally {
            lock.writeLock().unlock();
        }
        return key;
    }

    /** Writes {@code content} to a new temp file and forces it to disk; deletes it on failure. */
    private Path writeTemp(BlobKey key, byte[] content, Path target) throws IOException {
        Path temp = layout.tempPath(key, tempFileCounter.incrementAndGet());
        ByteBuffer buffer = ByteBuffer.wrap(content);
        try (FileChannel channel = FileChannel.open(temp, CREATE_NEW, WRITE)) {
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        } catch (IOException e) {
            throw discardTemp(
                    temp, writeFailure(key, content.length, buffer.position(), target, e));
        }
        return temp;
    }

    /** Moves a complete temp file to {@code target}, unless a concurrent put stored it first. */
    private void moveIntoPlace(BlobKey key, int numBytes, Path temp, Path target)
            throws IOException {
        assert lock.isWriteLockedByCurrentThread();
        try {
            if (layout.isStored(key)) {
                Files.delete(temp); // another put of the same content won the race
                return;
            }
            layout.createShard(key);
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw discardTemp(temp, writeFailure(key, numBytes, numBytes, target, e));
        }
    }

    /** Deletes {@code temp} if it exists; a failure to do so is added to {@code failure}. */
    private static IOException discardTemp(Path temp, IOException failure) {
        try {
            Files.deleteIfExists(temp);
        } catch (IOException e) {
            failure.addSuppressed(e);
        }
        return failure;
    }

    private IOException writeFailure(
            BlobKey key, int numBytes, int writtenBytes, Path target, IOException cause) {
        String reason =
                isOutOfSpace(cause)
                        ? "no space left on the file system of "
                                + layout.root
                                + " ("
                                + cause
                                + "); free space there or move the store to a larger disk"
                        : cause.toString();
        return new IOException(
                String.format(
                        Locale.ROOT,
                        "cannot write blob %s to %s: %d bytes to write, %d written; %s",
                        key,
                        target,
                        numBytes,
                        writtenBytes,
                        reason),
                cause);
    }

    /**
     * Whether {@code failure} (or a cause of it) reports a full disk. The JDK has no portable
     * exception for it, so this reads the messages: "No space left on device" (Linux, macOS), "out
     * of disk space" (Jimfs), "There is not enough space on the disk" (Windows).
     */
    static boolean isOutOfSpace(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message != null) {
                String lower = message.toLowerCase(Locale.ROOT);
                if (lower.contains("no space left")
                        || lower.contains("out of disk space")
                        || lower.contains("not enough space")
                        || lower.contains("disk full")) {
                    return true;
                }
            }
        }
        return false;
    }

    private void addReference(JobId job, BlobKey key) {
        assert lock.isWriteLockedByCurrentThread();
        referencesByJob.computeIfAbsent(job, j -> HashMultiset.create()).add(key);
        references.add(key);
        BlobReferences.add(1);
    }

    /**
     * {@inheritDoc}
     *
     * <p>O(n) to read and hash a blob of {@code n} bytes; allocates the returned array (exactly
     * {@code n} bytes, after checking {@code n <= maxBlobSizeBytes}). Concurrent gets run in
     * parallel.
     *
     * @throws BlobNotFoundException if there is no such blob
     * @throws CorruptBlobException if the stored content does not match {@code key}, or is larger
     *     than {@link #maxBlobSizeBytes()} (which a put never writes); the blob is deleted
     * @throws IOException if a symbolic link or a directory stands where the blob (or its shard
     *     directory) belongs (it is not followed and not read), or if reading fails
     */
    @Override
    public byte[] get(BlobKey key) throws IOException {
        Path path = blobPath(key);
        lock.readLock().lock();
        try {
            byte[] content = readBlob(key, path);
            if (content != null && keyOf(content).equals(key)) {
                return content;
            }
        } finally {
            lock.readLock().unlock();
        }
        // Rare: a bad blob. Read it again under the write lock, so that what is deleted is what
        // was checked (a concurrent release and put may have replaced it in between).
        lock.writeLock().lock();
        try {
            byte[] content = readBlob(key, path);
            if (content != null && keyOf(content).equals(key)) {
                return content;
            }
            throw deleteCorrupt(key, path, content);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * The bytes of the regular file at {@code path}, or {@code null} if it is larger than {@link
     * #maxBlobSizeBytes} (nothing is allocated then). Never follows a link.
     */
    private byte @Nullable [] readBlob(BlobKey key, Path path) throws IOException {
        if (!layout.isStored(key)) {
            throw new BlobNotFoundException(key, path.toString());
        }
        try (FileChannel channel = FileChannel.open(path, READ, NOFOLLOW_LINKS)) {
            long size = channel.size();
            if (size > maxBlobSizeBytes) {
                return null;
            }
            ByteBuffer buffer = ByteBuffer.allocate((int) size);
            while (buffer.hasRemaining()) {
                if (channel.read(buffer) < 0) {
                    break; // the file shrank meanwhile: the hash check rejects it
                }
            }
            byte[] content = buffer.array();
            return buffer.hasRemaining() ? Arrays.copyOf(content, buffer.position()) : content;
        } catch (NoSuchFileException e) {
            BlobNotFoundException notFound = new BlobNotFoundException(key, path.toString());
            notFound.initCause(e);
            throw notFound;
        }
    }

    /** Deletes the corrupt blob at {@code path} and returns the exception to throw. */
    private CorruptBlobException deleteCorrupt(BlobKey key, Path path, byte @Nullable [] content)
            throws IOException {
        assert lock.isWriteLockedByCurrentThread();
        String problem =
                content == null
                        ? String.format(
                                Locale.ROOT,
                                "it has %d bytes, more than maxBlobSizeBytes = %d, which a put"
                                        + " never writes",
                                Files.readAttributes(
                                                path, BasicFileAttributes.class, NOFOLLOW_LINKS)
                                        .size(),
                                maxBlobSizeBytes)
                        : String.format(
                                Locale.ROOT,
                                "its %d bytes hash to %s",
                                content.length,
                                keyOf(content));
        try {
            Files.delete(path);
        } catch (IOException e) {
            CorruptBlobException corrupt =
                    new CorruptBlobException(
                            key,
                            path.toString(),
                            problem
                                    + "; deleting it failed as well (suppressed): delete it by hand");
            corrupt.addSuppressed(e);
            return corrupt;
        }
        return new CorruptBlobException(
                key,
                path.toString(),
                problem
                        + "; the blob was deleted: put its content again (re-encode or refetch it)");
    }

    /**
     * {@inheritDoc}
     *
     * <p>O(1) plus one file deletion when the last reference goes. The deletion comes first: if it
     * fails, the reference is kept and the release can be retried.
     *
     * @throws IllegalStateException if {@code job} holds no reference to {@code key}
     */
    @Override
    public void release(JobId job, BlobKey key) throws IOException {
        lock.writeLock().lock();
        try {
            Multiset<BlobKey> held = referencesByJob.get(job);
            if (held == null || !held.contains(key)) {
                throw new IllegalStateException(
                        String.format(
                                Locale.ROOT,
                                "job %s holds no reference to blob %s (it holds %d references to"
                                        + " other blobs); release a key once per put that returned"
                                        + " it",
                                job,
                                key,
                                held == null ? 0 : held.size()));
            }
            if (references.count(key) == 1) {
                deleteBlob(job, key);
            }
            held.remove(key);
            if (held.isEmpty()) {
                referencesByJob.remove(job);
            }
            references.remove(key);
            BlobReferences.add(-1);
            assert references.count(key) >= 0;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>O(distinct blobs of the job) plus one file deletion per blob left without references. A
     * failed deletion does not stop the others; the job keeps its references to the blobs that
     * could not be deleted (so calling this again retries them), and the first failure is thrown
     * with the others suppressed. A job without references is a no-op.
     */
    @Override
    public void releaseJob(JobId job) throws IOException {
        lock.writeLock().lock();
        try {
            Multiset<BlobKey> held = referencesByJob.get(job);
            if (held == null) {
                return;
            }
            IOException failure = null;
            for (BlobKey key : ImmutableSet.copyOf(held.elementSet())) {
                int count = held.count(key);
                if (references.count(key) == count) {
                    try {
                        deleteBlob(job, key);
                    } catch (IOException e) {
                        if (failure == null) {
                            failure = e;
                        } else {
                            failure.addSuppressed(e);
                        }
                        continue;
                    }
                }
                held.remove(key, count);
                references.remove(key, count);
                BlobReferences.add(-count);
            }
            if (held.isEmpty()) {
                referencesByJob.remove(job);
            }
            if (failure != null) {
                throw failure;
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Deletes the file of a blob losing its last reference (held by {@code job}), if any. */
    private void deleteBlob(JobId job, BlobKey key) throws IOException {
        assert lock.isWriteLockedByCurrentThread();
        Path path = blobPath(key);
        try {
            layout.deleteBlobEntry(key); // for a link: the link itself, never its target
        } catch (IOException e) {
            throw new IOException(
                    "cannot delete blob "
                            + key
                            + " at "
                            + path
                            + " after the last reference (of job "
                            + job
                            + ") was released; the reference is kept, so the release can be"
                            + " retried: "
                            + e,
                    e);
        }
    }

    /** {@inheritDoc} O(1), no allocation. */
    @Override
    public int referenceCount(BlobKey key) {
        lock.readLock().lock();
        try {
            return references.count(key);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** How many references all jobs hold to all blobs; 0 once every job is released. O(1). */
    public int numReferences() {
        lock.readLock().lock();
        try {
            return references.size();
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * How many blob files are stored, counted on disk (for leak checks; a blob deleted as corrupt
     * while jobs still reference it is not counted). O(blobs + shards) directory reads.
     */
    public int numBlobs() throws IOException {
        lock.readLock().lock();
        try {
            return layout.numBlobEntries();
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * How many temp files are in {@code tmp/}: one per put writing new content right now, else 0
     * (for leak checks). O(temp files).
     */
    public int numTempFiles() throws IOException {
        return layout.numTempEntries();
    }

    /** The directory this store was opened in. O(1). */
    public Path root() {
        return layout.root;
    }

    /** The largest blob that {@link #put} accepts and {@link #get} reads, in bytes. O(1). */
    public int maxBlobSizeBytes() {
        return maxBlobSizeBytes;
    }

    /**
     * Checks the structural invariants and throws {@link IllegalStateException} on a violation:
     * references per job sum to the totals, no job has an empty entry, every entry below {@code
     * blobs/} is a shard directory holding regular files named by referenced keys of that shard.
     * Returns {@code true} so that it can be asserted. O(blobs + jobs × their blobs). For tests;
     * call it while no other thread uses the store.
     */
    public boolean checkInvariants() throws IOException {
        lock.writeLock().lock();
        try {
            Multiset<BlobKey> sum = HashMultiset.create();
            referencesByJob.forEach(
                    (job, held) -> {
                        checkState(!held.isEmpty(), "job %s has an empty reference entry", job);
                        sum.addAll(held);
                    });
            checkState(
                    sum.equals(references),
                    "references per job %s do not sum to the totals %s",
                    sum,
                    references);
            for (BlobKey key : layout.checkedBlobKeys()) {
                checkState(references.contains(key), "blob %s is stored without references", key);
            }
            return true;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** The SHA-256 of {@code content} as a key. O(n), allocates the key. Every JDK has SHA-256. */
    static BlobKey keyOf(byte[] content) {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(
                    "this JDK lacks SHA-256, which the JCA spec requires", e);
        }
        return new BlobKey(HexFormat.of().formatHex(digest.digest(content)));
    }

    /** Where blob {@code key} is stored: {@code blobs/<first 2 digits>/<key>}. O(1). */
    Path blobPath(BlobKey key) {
        return layout.blobPath(key);
    }
}
