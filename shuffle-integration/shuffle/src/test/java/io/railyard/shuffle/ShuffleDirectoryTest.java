package io.railyard.shuffle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.railyard.testing.LeakDetector.KeepsFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ShuffleDirectory} (ARCHITECTURE.md, Reliability row 31): create and close; the sweep
 * deletes the directories of dead owners and of reused pids, and nothing else.
 */
class ShuffleDirectoryTest {
    @TempDir Path root;

    /** The pid of a process that has exited. */
    private static long deadPid() throws IOException, InterruptedException {
        Process process = new ProcessBuilder("true").start();
        process.waitFor();
        return process.pid();
    }

    /** A directory under {@code parent} with files in nested directories and {@code marker}. */
    private static Path markedDirectory(Path parent, String name, String marker)
            throws IOException {
        Path directory = Files.createDirectories(parent.resolve(name));
        Files.writeString(directory.resolve(ShuffleDirectory.MARKER_FILE), marker);
        Path nested = Files.createDirectories(directory.resolve("sub/deeper"));
        Files.writeString(directory.resolve("p.data"), "data");
        Files.writeString(directory.resolve("sub/p.index"), "index");
        Files.writeString(nested.resolve("h.hash.0"), "hash");
        return directory;
    }

    private static String marker(long pid, Instant start) {
        return new OwnerMarker(pid, start).text();
    }

    @Test
    void create_thenClose_marksTheDirectoryWithThisProcessAndDeletesEverything()
            throws IOException {
        Path parent = root.resolve("missing/parent");
        ShuffleDirectory directory = ShuffleDirectory.create(parent, "job-1.a_b");
        Path path = directory.path();
        assertThat(path.getParent()).isEqualTo(parent);
        assertThat(path.getFileName().toString()).startsWith("job-1.a_b").isNotEqualTo("job-1.a_b");
        assertThat(Files.readString(path.resolve(ShuffleDirectory.MARKER_FILE)))
                .startsWith("railyard-shuffle-owner v2\npid=" + ProcessHandle.current().pid())
                .contains("\nstart=");
        assertThat(OwnerMarker.read(path)).isEqualTo(OwnerMarker.current());
        Files.createDirectories(path.resolve("a/b"));
        Files.writeString(path.resolve("a/b/file"), "x");

        directory.close();

        assertThat(path).doesNotExist();
        assertThat(parent).isEmptyDirectory();
        directory.close(); // idempotent
        try (ShuffleDirectory again = ShuffleDirectory.create(parent, "job-1.a_b")) {
            assertThat(again.path()).isNotEqualTo(path);
        }
    }

    /**
     * Railyard's directories sit in shared places (the temp directory): on a POSIX file system only
     * their owner may list, enter or write them (0700), whatever the umask.
     */
    @Test
    void create_onPosix_isTheOwnersAlone() throws IOException {
        assumeTrue(root.getFileSystem().supportedFileAttributeViews().contains("posix"));
        try (ShuffleDirectory directory = ShuffleDirectory.create(root, "private")) {
            assertThat(
                            PosixFilePermissions.toString(
                                    Files.getPosixFilePermissions(directory.path())))
                    .isEqualTo("rwx------");
        }
    }

    @Test
    void create_badPrefix_rejectedNamingIt() {
        for (String prefix : List.of("", "a/b", "x".repeat(65), "é", "a b")) {
            assertThatThrownBy(() -> ShuffleDirectory.create(root, prefix))
                    .as("prefix '%s'", prefix)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("1 to 64 of [A-Za-z0-9._-]")
                    .hasMessageContaining("'" + prefix + "'");
        }
        assertThat(root).isEmptyDirectory();
    }

    @Test
    @KeepsFiles("the directories of dead, live and foreign owners are the scenario")
    void sweepStale_deadOwner_deletesItsDirectoryAndNestedFiles() throws Exception {
        Path stale = markedDirectory(root, "dead-owner", marker(deadPid(), Instant.now()));

        assertThat(ShuffleDirectory.sweepStale(root)).containsExactly(stale);
        assertThat(root).isEmptyDirectory();
    }

    /**
     * A parent shared with another host (a network file system) or another container: a marker
     * naming another host is never swept, even with a pid that runs nowhere here — its owner may
     * well be alive there. A version-1 marker (no host) is judged by its pid, as before.
     */
    @Test
    @KeepsFiles("the directories of dead, live and foreign owners are the scenario")
    void sweepStale_anotherHostsDirectory_kept_aVersionOneMarker_judgedByItsPid() throws Exception {
        assumeTrue(OwnerMarker.current().host() != null, "the kernel tells no host name here");
        long dead = deadPid();
        Path elsewhere =
                markedDirectory(
                        root,
                        "other-host",
                        "railyard-shuffle-owner v2\npid="
                                + dead
                                + "\nstart=unknown\nhost=elsewhere\n");
        Path old =
                markedDirectory(
                        root,
                        "version-one",
                        "railyard-shuffle-owner v1\npid=" + dead + "\nstart=unknown\n");

        assertThat(ShuffleDirectory.sweepStale(root)).containsExactly(old);
        assertThat(elsewhere.resolve("sub/p.index")).exists();
    }

    @Test
    @KeepsFiles("the directories of dead, live and foreign owners are the scenario")
    void sweepStale_pidAboveTheOsMaximum_deleted() throws IOException {
        Path stale = markedDirectory(root, "huge-pid", marker(1L << 40, Instant.now()));
        assertThat(ShuffleDirectory.sweepStale(root)).containsExactly(stale);
    }

    @Test
    @KeepsFiles("the directories of dead, live and foreign owners are the scenario")
    void sweepStale_thisProcessPidWithAnotherStartInstant_reusedPidDeleted() throws IOException {
        OwnerMarker self = OwnerMarker.current();
        Instant start = self.start();
        assumeTrue(start != null, "no start instants here");
        Path reused =
                markedDirectory(
                        root, "reused-pid", marker(self.pid(), start.minus(Duration.ofHours(1))));
        Path live = ShuffleDirectory.create(root, "live").path();

        assertThat(ShuffleDirectory.sweepStale(root)).containsExactly(reused);
        assertThat(live).isDirectory();
    }

    @Test
    @KeepsFiles("the directories of dead, live and foreign owners are the scenario")
    void sweepStale_liveOwnerForeignEntriesAndInvalidMarkers_allKept() throws Exception {
        Path live = ShuffleDirectory.create(root, "live").path();
        Files.writeString(live.resolve("p.data"), "data");
        Path foreignFile = Files.writeString(root.resolve("notes.txt"), "mine");
        Path unmarked = Files.createDirectories(root.resolve("unmarked/sub"));
        long dead = deadPid();
        String valid = marker(dead, Instant.now());
        List<Path> kept =
                List.of(
                        markedDirectory(root, "garbled-header", valid.replace("v2", "v3")),
                        markedDirectory(root, "v1-with-host", valid.replace("v2", "v1")),
                        markedDirectory(root, "empty-host", valid.replaceAll("host=.*", "host=")),
                        markedDirectory(root, "garbled-pid", valid.replace("pid=", "pid=x")),
                        markedDirectory(root, "garbled-start", valid.replace("start=", "start=x")),
                        markedDirectory(root, "extra-line", valid + "more=1\n"),
                        markedDirectory(root, "empty-marker", ""),
                        markedDirectory(root, "binary-marker", "\u0000\uFFFF"));
        Path markerIsDirectory = Files.createDirectories(root.resolve("marker-dir"));
        Files.createDirectory(markerIsDirectory.resolve(ShuffleDirectory.MARKER_FILE));
        Path elsewhere = Files.writeString(Files.createTempFile("marker", ".txt"), valid);
        Path markerIsLink = Files.createDirectories(root.resolve("marker-link"));
        Files.createSymbolicLink(markerIsLink.resolve(ShuffleDirectory.MARKER_FILE), elsewhere);

        assertThat(ShuffleDirectory.sweepStale(root)).isEmpty();

        assertThat(live.resolve("p.data")).exists();
        assertThat(foreignFile).hasContent("mine");
        assertThat(unmarked).isDirectory();
        for (Path directory : kept) {
            assertThat(directory.resolve("sub/deeper/h.hash.0")).as("%s", directory).exists();
        }
        assertThat(markerIsDirectory.resolve(ShuffleDirectory.MARKER_FILE)).isDirectory();
        assertThat(markerIsLink).isDirectory();
        Files.delete(elsewhere);
    }

    @Test
    @KeepsFiles("the directories of dead, live and foreign owners are the scenario")
    void sweepStale_linksInsideAndUnderTheParent_neverFollowed() throws Exception {
        Path outside = Files.createDirectories(root.resolve("outside"));
        Path precious = Files.writeString(outside.resolve("precious"), "keep me");
        Path parent = Files.createDirectories(root.resolve("parent"));
        Path stale = markedDirectory(parent, "stale", marker(deadPid(), Instant.now()));
        Files.createSymbolicLink(stale.resolve("link-out"), outside);
        Files.createSymbolicLink(stale.resolve("sub/file-link"), precious);
        Path staleElsewhere =
                markedDirectory(root, "stale-elsewhere", marker(deadPid(), Instant.now()));
        Path linkToStale = Files.createSymbolicLink(parent.resolve("link"), staleElsewhere);

        assertThat(ShuffleDirectory.sweepStale(parent)).containsExactly(stale);

        assertThat(precious).hasContent("keep me");
        assertThat(staleElsewhere.resolve("sub/p.index")).exists();
        assertThat(Files.isSymbolicLink(linkToStale)).isTrue();
    }

    @Test
    @KeepsFiles("the directories of dead, live and foreign owners are the scenario")
    void sweepStale_severalStale_deletedInNameOrder() throws Exception {
        String dead = marker(deadPid(), Instant.now());
        Path b = markedDirectory(root, "b", dead);
        Path a = markedDirectory(root, "a", dead);
        Path c = markedDirectory(root, "c", dead);
        assertThat(ShuffleDirectory.sweepStale(root)).containsExactly(a, b, c);
    }

    @Test
    @KeepsFiles("a file given as the parent is the scenario")
    void sweepStale_missingParent_empty() throws IOException {
        assertThat(ShuffleDirectory.sweepStale(root.resolve("nowhere"))).isEmpty();
        Path file = Files.writeString(root.resolve("file"), "x", StandardCharsets.UTF_8);
        assertThatThrownBy(() -> ShuffleDirectory.sweepStale(file))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(file + ": not a directory");
    }

    @Test
    void deleteOnExit_thenClose_hookRemovedAndDirectoryDeleted() throws IOException {
        ShuffleDirectory directory = ShuffleDirectory.create(root, "hooked").deleteOnExit();
        assertThat(directory.deleteOnExit()).isSameAs(directory);
        directory.close();
        assertThat(directory.path()).doesNotExist();
        assertThatThrownBy(directory::deleteOnExit)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }
}
