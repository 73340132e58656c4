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
 * The owner a {@link ShuffleDirectory} marker names: a process id and, when the platform reports
 * it, the process's start instant. The marker file is UTF-8 text, exactly three lines:
 *
 * <pre>
 * railyard-shuffle-owner v1
 * pid=12345
 * start=2026-11-23T20:16:05.120Z      (ISO-8601, or "unknown")
 * </pre>
 *
 * <p>The owner is gone when no process has the pid, or when one has it but started at another
 * instant (the pid was reused). Instants are compared within {@link #START_TOLERANCE}: the JDK
 * derives them from the kernel's boot time, which two JVMs may read a second apart. When either
 * instant is unknown, only the pid is compared, so a reused pid keeps the directory. Immutable.
 *
 * @param pid the owner's process id
 * @param start the owner's start instant, or null if the platform did not report it
 */
record OwnerMarker(long pid, @Nullable Instant start) {
    static final String HEADER = "railyard-shuffle-owner v1";

    /** Start instants closer than this name the same process. */
    static final Duration START_TOLERANCE = Duration.ofSeconds(2);

    /** A marker larger than this is not one of ours (it is not read). */
    private static final int MAX_BYTES = 1024;

    /** The marker of this process. */
    static OwnerMarker current() {
        ProcessHandle self = ProcessHandle.current();
        return new OwnerMarker(self.pid(), self.info().startInstant().orElse(null));
    }

    /** The marker's text. */
    String text() {
        return HEADER + "\npid=" + pid + "\nstart=" + (start == null ? "unknown" : start) + "\n";
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
        if (lines.size() != 3
                || !lines.get(0).equals(HEADER)
                || !lines.get(1).startsWith("pid=")
                || !lines.get(2).startsWith("start=")) {
            return null;
        }
        try {
            long pid = Long.parseLong(lines.get(1).substring("pid=".length()));
            String start = lines.get(2).substring("start=".length());
            if (pid <= 0) {
                return null;
            }
            return new OwnerMarker(pid, start.equals("unknown") ? null : Instant.parse(start));
        } catch (NumberFormatException | DateTimeParseException e) {
            return null; // garbled: not ours to judge
        }
    }

    /** Whether the owner no longer runs (no such pid, or the pid now names another process). */
    boolean ownerIsGone() {
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
