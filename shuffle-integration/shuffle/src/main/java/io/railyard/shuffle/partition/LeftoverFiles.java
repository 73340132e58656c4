package io.railyard.shuffle.partition;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The partition files a worker failed to delete, kept so that none is left behind silently. A
 * writer or the worker deletes the files of a partition it gives up through {@link #deleteAll}:
 * each failure is recorded here and, when an exception is already propagating, also attached to it
 * as suppressed. {@link ShuffleWorker#close()} retries every recorded file through {@link
 * #retryAll()} and reports those it still cannot delete.
 *
 * <p>Thread-safe (writers of several tasks share one). Deleting is O(files); nothing is allocated
 * unless a deletion fails.
 */
final class LeftoverFiles {
    // Each file not deleted yet, with its first failure; in failure order.
    @GuardedBy("this")
    private final Map<Path, IOException> failures = new LinkedHashMap<>();

    /**
     * Deletes each of {@code files} that exists. A file that cannot be deleted is recorded for
     * {@link #retryAll()} and its failure is added to {@code propagating} as suppressed, if given.
     *
     * @return the first failure recorded (the caller may attach what explains it), or null
     */
    @Nullable IOException deleteAll(List<Path> files, @Nullable Throwable propagating) {
        IOException first = null;
        for (Path file : files) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                record(file, e);
                if (propagating != null) {
                    propagating.addSuppressed(e);
                }
                first = first == null ? e : first;
            }
        }
        return first;
    }

    /** Files recorded and not deleted yet. */
    synchronized int count() {
        return failures.size();
    }

    /**
     * Tries again to delete every recorded file; forgets those now gone.
     *
     * @return null if none is left, else an exception naming each file still there, with its first
     *     failure suppressed (and, suppressed in that, the later ones)
     */
    @Nullable IOException retryAll() {
        List<Path> files;
        synchronized (this) {
            files = new ArrayList<>(failures.keySet());
        }
        for (Path file : files) {
            try {
                Files.deleteIfExists(file);
                synchronized (this) {
                    failures.remove(file);
                }
            } catch (IOException e) {
                record(file, e);
            }
        }
        return report();
    }

    /** Records a failure to delete {@code file}; a later one is suppressed in the first. */
    private synchronized void record(Path file, IOException failure) {
        IOException first = failures.putIfAbsent(file, failure);
        if (first != null && first != failure) {
            first.addSuppressed(failure);
        }
    }

    private synchronized @Nullable IOException report() {
        if (failures.isEmpty()) {
            return null;
        }
        IOException report =
                new IOException(
                        "could not delete "
                                + failures.size()
                                + " partition file(s), even when retried at close: "
                                + failures.keySet()
                                + "; delete them by hand (each failure is attached: check what"
                                + " is in the way, the directory's permissions and the disk)");
        for (IOException failure : failures.values()) {
            report.addSuppressed(failure);
        }
        return report;
    }
}
