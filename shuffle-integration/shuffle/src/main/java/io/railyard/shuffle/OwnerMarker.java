package io.railyard.shuffle;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The owner a {@link ShuffleDirectory} marker names: a process id, when the platform reports them
 * the process's start instant and its host's name. The marker file is UTF-8 text, exactly four
 * lines (a version-1 marker, of an older Railyard, has the first three, and no host):
 *
 * <pre>
 * railyard-shuffle-owner v2
 * pid=12345
 * start=2026-11-23T20:16:05.120Z      (ISO-8601, or "unknown")
 * host=worker-7                        (the kernel's host name, or "unknown")
 * </pre>
 *
 * <p>The owner is gone when no process has the pid, or when one has it but started at another
 * instant (the pid was reused). Instants are compared within {@link #START_TOLERANCE}: the JDK
 * derives them from the kernel's boot time, which two JVMs may read a second apart. When either
 * instant is unknown, only the pid is compared, so a reused pid keeps the directory. A marker of
 * another host — a parent directory shared over the network, or between containers, whose pids mean
 * nothing here — is never judged gone: the sweep leaves it alone. Immutable.
 *
 * @param pid the owner's process id
 * @param start the owner's start instant, or null if the platform did not report it
 * @param host the owner's host name, or null if unknown (a version-1 marker, or no name here)
 */
record OwnerMarker(long pid, @Nullable Instant start, @Nullable String host) {
    static final String HEADER = "railyard-shuffle-owner v2";

    /** The header of a marker without a host line. */
    static final String HEADER_V1 = "railyard-shuffle-owner v1";

    /** Where Linux tells the host's name (of the process's UTS namespace: a container's own). */
    private static final Path HOST_NAME_FILE = Path.of("/proc/sys/kernel/hostname");

    /** This host's name, read once; null where the kernel does not tell it. */
    private static final @Nullable String HOST = readHostName();

    /** Start instants closer than this name the same process. */
    static final Duration START_TOLERANCE = Duration.ofSeconds(2);

    /** A marker larger than this is not one of ours (it is not read). */
    private static final int MAX_BYTES = 1024;

    /** A marker of a process on this host. */
    OwnerMarker(long pid, @Nullable Instant start) {
        this(pid, start, HOST);
    }

    /** The marker of this process. */
    static OwnerMarker current() {
        ProcessHandle self = ProcessHandle.current();
        return new OwnerMarker(self.pid(), self.info().startInstant().orElse(null));
    }

    /** The marker's text. */
    String text() {
        return HEADER
                + "\npid="
                + pid
                + "\nstart="
                + (start == null ? "unknown" : start)
                + "\nhost="
                + (host == null ? "unknown" : host)
                + "\n";
    }

    private static @Nullable String readHostName() {
        try {
            String name = Files.readString(HOST_NAME_FILE, StandardCharsets.UTF_8).strip();
            return name.isEmpty() || name.contains("\n") ? null : name;
        } catch (IOException | RuntimeException e) {
            return null; // not Linux: markers carry no host, as version 1 did
        }
    }

    /**
     * The marker file of {@code directory}, or null if it is missing, not a regular file (a link is
     * not followed), larger than {@value #MAX_BYTES} bytes, or not exactly a valid marker.
     *
     * @throws IOException if the marker exists but cannot be read
     */
    static @Nullable OwnerMarker read(Path directory) throws IOException {
        Path file = directory.resolve(ShuffleDirectory.MARKER_FILE);
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class, NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null; // unmarked: not ours to judge
        }
        if (!attributes.isRegularFile() || attributes.size() > MAX_BYTES) {
            return null;
        }
        ByteBuffer bytes = ByteBuffer.allocate(MAX_BYTES + 1);
        try (SeekableByteChannel channel =
                Files.newByteChannel(file, StandardOpenOption.READ, NOFOLLOW_LINKS)) {
            int read;
            do { // to the end, or one byte past the limit
                read = channel.read(bytes);
            } while (read >= 0 && bytes.hasRemaining());
        } catch (NoSuchFileException e) {
            return null; // deleted meanwhile (its owner closed it)
        }
        if (bytes.position() > MAX_BYTES) {
            return null;
        }
        try {
            return parse(StandardCharsets.UTF_8.newDecoder().decode(bytes.flip()).toString());
        } catch (CharacterCodingException e) {
            return null; // not UTF-8 text: garbled, so not ours to judge
        }
    }

    /** The marker {@code text} holds, or null if it is not exactly a valid one. */
    static @Nullable OwnerMarker parse(String text) {
        List<String> lines = text.lines().toList();
        boolean v2 = lines.size() == 4 && lines.get(0).equals(HEADER);
        boolean v1 = lines.size() == 3 && lines.get(0).equals(HEADER_V1);
        if (!(v1 || v2)
                || !lines.get(1).startsWith("pid=")
                || !lines.get(2).startsWith("start=")
                || (v2 && !lines.get(3).startsWith("host="))) {
            return null;
        }
        try {
            long pid = Long.parseLong(lines.get(1).substring("pid=".length()));
            String start = lines.get(2).substring("start=".length());
            String host = v2 ? lines.get(3).substring("host=".length()) : "unknown";
            if (pid <= 0 || host.isEmpty()) {
                return null;
            }
            return new OwnerMarker(
                    pid,
                    start.equals("unknown") ? null : Instant.parse(start),
                    host.equals("unknown") ? null : host);
        } catch (NumberFormatException | DateTimeParseException e) {
            return null; // garbled: not ours to judge
        }
    }

    /**
     * Whether the owner no longer runs (no such pid, or the pid now names another process); never
     * for a marker of another host, whose pid means nothing here.
     */
    boolean ownerIsGone() {
        if (host != null && HOST != null && !host.equals(HOST)) {
            return false;
        }
        Optional<ProcessHandle> process = ProcessHandle.of(pid);
        if (process.isEmpty() || !process.get().isAlive()) {
            return true;
        }
        Instant recorded = start;
        Instant running = process.get().info().startInstant().orElse(null);
        if (recorded == null || running == null) {
            return false; // pid only: a live pid keeps the directory
        }
        return Duration.between(recorded, running).abs().compareTo(START_TOLERANCE) > 0;
    }
}
