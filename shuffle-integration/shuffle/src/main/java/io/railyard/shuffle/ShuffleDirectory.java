package io.railyard.shuffle;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
import static java.nio.file.LinkOption.NOFOLLOW_LINKS;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.railyard.topology.Failures;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A process's own shuffle directory, marked with its owner so that what a killed JVM leaves behind
 * is found and deleted by the next one (ARCHITECTURE.md, Reliability row 31: "JVM killed mid-job,
 * then restarted on the same directories: startup cleans the shuffle dirs of unknown jobs").
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li><b>Marked like the blob store.</b> As {@code deployment-cache}'s {@code
 *       FileSystemBlobStore} marks its root, every directory created here holds a {@value
 *       #MARKER_FILE} file naming the owning process: its pid and start instant (ISO-8601, from
 *       {@link ProcessHandle.Info#startInstant()}). Where the platform does not report start
 *       instants, the marker says {@code start=unknown} and only the pid is compared: a reused pid
 *       then keeps a stale directory (never the reverse).
 *   <li><b>The sweep is conservative.</b> {@link #sweepStale} deletes only directories whose marker
 *       is valid and names a process that no longer runs, or a reused pid (same pid, another start
 *       instant, beyond a 2-second tolerance for the kernel's boot-time rounding). Anything else
 *       under the parent, including a directory whose marker is missing, garbled, a link or too
 *       large, is someone else's and is left alone. Links are never followed.
 *   <li><b>The marker goes last.</b> Deleting a tree deletes its marker just before the directory
 *       itself, so a deletion cut short leaves a directory that the next sweep still recognises.
 *   <li><b>Exit.</b> {@link #deleteOnExit()} registers a shutdown hook (run on normal exit, Ctrl-C
 *       and SIGTERM; not on SIGKILL, which the next sweep covers). Other threads may still write
 *       during shutdown, so the tree deletion repeats a walk that finds new files, a bounded number
 *       of times.
 * </ul>
 *
 * <p>Thread-safe. Creating is O(1) file operations; {@link #close()} and the hook are O(entries)
 * per walk; {@link #sweepStale} O(entries under the parent + entries deleted).
 */
public final class ShuffleDirectory implements AutoCloseable {
    /** Name of the marker file in every directory this class creates. */
    public static final String MARKER_FILE = "railyard-shuffle-owner";

    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private final Path path;
    private final Object lock = new Object();

    @GuardedBy("lock")
    private @Nullable Thread hook;

    @GuardedBy("lock")
    private boolean closed;

    private ShuffleDirectory(Path path) {
        this.path = path;
    }

    /**
     * Creates a new, empty directory under parent named prefix + a unique suffix, with the marker
     * naming this process (pid and process start instant). prefix: 1..64 of [A-Za-z0-9._-]. Creates
     * parent if missing. On a POSIX file system the directory is its owner's alone (0700, as {@link
     * Files#createTempDirectory} makes it, whatever the umask): it often sits in a shared place.
     *
     * @throws IllegalArgumentException if {@code prefix} is not 1 to 64 of {@code [A-Za-z0-9._-]}
     * @throws IOException if the parent or the directory cannot be created, or the marker written
     *     (the directory is then deleted again)
     */
    public static ShuffleDirectory create(Path parent, String prefix) throws IOException {
        checkArgument(
                PREFIX.matcher(prefix).matches(),
                "shuffle directory prefix must be 1 to 64 of [A-Za-z0-9._-], was '%s'",
                prefix);
        Files.createDirectories(parent);
        Path directory = Files.createTempDirectory(parent, prefix);
        try {
            Files.writeString(
                    directory.resolve(MARKER_FILE),
                    OwnerMarker.current().text(),
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE);
        } catch (IOException | RuntimeException e) {
            try {
                TreeDeletion.delete(directory, MARKER_FILE);
            } catch (IOException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
        return new ShuffleDirectory(directory);
    }

    /** The directory. */
    public Path path() {
        return path;
    }

    /**
     * Deletes, directly under parent, every directory whose marker names a process that no longer
     * runs (or a reused pid: same pid, different start instant); returns the directories deleted,
     * in name order. Never touches an entry without a valid marker (a foreign file or directory, a
     * directory whose marker is missing, garbled or not a regular file), never follows symbolic
     * links, and never deletes the directory of a live process. A missing parent is an empty
     * result.
     *
     * @throws IOException if {@code parent} is not a directory or cannot be listed, or naming the
     *     first path that could not be deleted (after trying every stale directory; the other
     *     failures are suppressed in it)
     */
    public static List<Path> sweepStale(Path parent) throws IOException {
        if (!Files.exists(parent)) {
            return List.of();
        }
        if (!Files.isDirectory(parent)) {
            throw new IOException(
                    "cannot sweep shuffle directories under " + parent + ": not a directory");
        }
        List<Path> candidates = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(parent)) {
            for (Path entry : entries) {
                candidates.add(entry);
            }
        }
        candidates.sort(null);
        List<Path> deleted = new ArrayList<>();
        IOException failure = null;
        for (Path candidate : candidates) {
            try {
                if (isStale(candidate)) {
                    TreeDeletion.delete(candidate, MARKER_FILE);
                    deleted.add(candidate);
                }
            } catch (IOException e) {
                failure = Failures.add(failure, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
        return deleted;
    }

    /** A real directory (not a link) whose valid marker names an owner that is gone. */
    private static boolean isStale(Path entry) {
        OwnerMarker owner;
        try {
            BasicFileAttributes attributes =
                    Files.readAttributes(entry, BasicFileAttributes.class, NOFOLLOW_LINKS);
            if (!attributes.isDirectory()) {
                return false; // a file, or a link (to a directory or not): never ours to delete
            }
            owner = OwnerMarker.read(entry);
        } catch (IOException e) {
            // Gone meanwhile, or a marker that cannot be read: without a valid marker the entry
            // is not ours to judge, and the sweep leaves it alone (as documented).
            return false;
        }
        return owner != null && owner.ownerIsGone();
    }

    /**
     * Registers a JVM shutdown hook (Ctrl-C, SIGTERM) that deletes this directory and everything
     * below it; close() removes the hook. Returns this. Idempotent.
     *
     * @throws IllegalStateException if this directory was closed
     */
    public ShuffleDirectory deleteOnExit() {
        synchronized (lock) {
            checkState(!closed, "shuffle directory %s is closed", path);
            if (hook == null) {
                Thread exitHook = new Thread(this::deleteAtExit, "railyard-shuffle-dir-cleanup");
                Runtime.getRuntime().addShutdownHook(exitHook);
                hook = exitHook;
            }
        }
        return this;
    }

    /**
     * Deletes the directory and everything below it (idempotent), without following links; removes
     * the shutdown hook.
     *
     * @throws IOException naming the first path that could not be deleted
     */
    @Override
    public void close() throws IOException {
        synchronized (lock) {
            closed = true;
            Thread exitHook = hook;
            hook = null;
            if (exitHook != null) {
                try {
                    Runtime.getRuntime().removeShutdownHook(exitHook);
                } catch (IllegalStateException shuttingDown) {
                    // The JVM is exiting and the hook runs (or ran): both delete, which is safe.
                }
            }
        }
        TreeDeletion.delete(path, MARKER_FILE);
    }

    private void deleteAtExit() {
        try {
            TreeDeletion.delete(path, MARKER_FILE);
        } catch (IOException e) {
            // No caller is left to throw to during shutdown: report on the process's stderr.
            System.err.println("railyard: shuffle directory not deleted at exit: " + e);
        }
    }

    @Override
    public String toString() {
        return "ShuffleDirectory[" + path + "]";
    }
}
