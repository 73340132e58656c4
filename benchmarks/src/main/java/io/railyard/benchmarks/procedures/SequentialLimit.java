package io.railyard.benchmarks.procedures;

import io.railyard.benchmarks.procedures.ShuffleThroughput.Settings;
import io.railyard.benchmarks.procedures.ShuffleThroughput.Throughput;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The machine's sequential file limits beside which {@link ShuffleThroughput} reports: one file of
 * the run's size written then read a page per call, through the page cache and with {@code
 * O_DIRECT}. Stateless; runs on the calling thread.
 */
final class SequentialLimit {
    private static final int LIMIT_ROUNDS = 3;

    private SequentialLimit() {}

    /**
     * The machine's sequential limit: the best of three rounds of one large file written then read
     * sequentially, a page per call, through the page cache.
     */
    static Throughput limit(Settings settings) throws IOException {
        return bestOf(LIMIT_ROUNDS, settings, false, settings.bytes());
    }

    /**
     * The device's sequential limit: the same with {@code O_DIRECT} (no page cache), best of two
     * rounds over at most 512 MiB; {@link ShuffleThroughput.Failure.Unsupported} if the file system
     * refuses direct IO.
     */
    static Throughput deviceLimit(Settings settings) {
        long bytes = Math.min(settings.bytes(), 512L << 20);
        try {
            return bestOf(2, settings, true, bytes);
        } catch (IOException | UnsupportedOperationException e) {
            return new Throughput.Failed(
                    new ShuffleThroughput.Failure.Unsupported("direct IO unavailable here: " + e),
                    1);
        }
    }

    private static Throughput.Measured bestOf(
            int rounds, Settings settings, boolean direct, long bytes) throws IOException {
        double write = 0;
        double read = 0;
        for (int round = 0; round < rounds; round++) {
            Throughput.Measured one = limitOnce(settings, direct, bytes);
            write = Math.max(write, one.writeMbPerSecond());
            read = Math.max(read, one.readMbPerSecond());
        }
        return Throughput.Measured.withoutRecords(write, read, 1);
    }

    private static Throughput.Measured limitOnce(Settings settings, boolean direct, long bytes)
            throws IOException {
        int pageSize = settings.options().pageSizeBytes();
        Path file = Files.createTempFile(settings.directory(), "limit", ".data");
        try {
            int block = direct ? (int) Files.getFileStore(file).getBlockSize() : 1;
            ByteBuffer page = ByteBuffer.allocateDirect(pageSize + block).alignedSlice(block);
            page.limit(pageSize);
            byte[] random = new byte[pageSize];
            new SplittableRandom(1).nextBytes(random);
            page.put(random).flip();
            long start = System.nanoTime();
            long written = writePages(file, direct, page, bytes / pageSize);
            double write = ShuffleThroughput.mbPerSecond(written, System.nanoTime() - start);
            start = System.nanoTime();
            long read = 0;
            try (FileChannel channel = FileChannel.open(file, openOptions(direct, false))) {
                for (int n = 0; n >= 0; n = channel.read(page.clear())) {
                    read += n;
                }
            }
            return Throughput.Measured.withoutRecords(
                    write, ShuffleThroughput.mbPerSecond(read, System.nanoTime() - start), 1);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** Writes {@code page} {@code pages} times; a failure names the file and the bytes written. */
    private static long writePages(Path file, boolean direct, ByteBuffer page, long pages)
            throws IOException {
        long written = 0;
        try (FileChannel channel = FileChannel.open(file, openOptions(direct, true))) {
            for (long p = 0; p < pages; p++) {
                page.rewind();
                while (page.hasRemaining()) {
                    written += channel.write(page);
                }
            }
        } catch (FileSystemException e) {
            throw e;
        } catch (IOException e) {
            FileSystemException located =
                    new FileSystemException(
                            file.toString(),
                            null,
                            e.getMessage() + " after " + written + " bytes written");
            located.initCause(e);
            throw located;
        }
        return written;
    }

    private static Set<OpenOption> openOptions(boolean direct, boolean write) {
        Set<OpenOption> options = new HashSet<>();
        options.add(write ? StandardOpenOption.WRITE : StandardOpenOption.READ);
        if (direct) {
            options.add(com.sun.nio.file.ExtendedOpenOption.DIRECT);
        }
        return options;
    }
}
