package io.railyard.shuffle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The child JVM of {@link ShuffleDirectoryExitTest}: creates a {@link ShuffleDirectory} under
 * {@code args[0]} with {@code deleteOnExit()}, writes files in nested directories, keeps a thread
 * creating more (so the exit hook deletes while files still appear), prints "ready" and its
 * directory, and sleeps until it is stopped.
 */
final class ShuffleDirectoryChild {
    private ShuffleDirectoryChild() {}

    public static void main(String[] args) throws Exception {
        ShuffleDirectory directory = ShuffleDirectory.create(Path.of(args[0]), "child");
        directory.deleteOnExit();
        Path nested = Files.createDirectories(directory.path().resolve("job/partition"));
        for (int i = 0; i < 5; i++) {
            Files.writeString(nested.resolve("p" + i + ".data"), "data " + i);
        }
        Thread writer = new Thread(() -> writeUntilGone(nested), "late-writer");
        writer.setDaemon(true);
        writer.start();
        System.out.println("ready " + directory.path());
        System.out.flush();
        Thread.sleep(TimeUnit.MINUTES.toMillis(2));
    }

    private static void writeUntilGone(Path directory) {
        try {
            for (int i = 0; ; i++) {
                Files.writeString(directory.resolve("late" + i), "late");
                Thread.sleep(1);
            }
        } catch (IOException | InterruptedException e) {
            // The directory was deleted at exit (NoSuchFileException): this writer is done.
        }
    }
}
