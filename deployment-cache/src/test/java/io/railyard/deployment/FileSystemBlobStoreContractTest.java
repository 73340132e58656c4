package io.railyard.deployment;

import static io.railyard.deployment.FileSystemBlobStoreTesting.ABC_SHA256;
import static io.railyard.deployment.FileSystemBlobStoreTesting.EMPTY_SHA256;
import static io.railyard.deployment.FileSystemBlobStoreTesting.JOB_A;
import static io.railyard.deployment.FileSystemBlobStoreTesting.JOB_B;
import static io.railyard.deployment.FileSystemBlobStoreTesting.assertHoldsExactly;
import static io.railyard.deployment.FileSystemBlobStoreTesting.content;
import static io.railyard.deployment.FileSystemBlobStoreTesting.entriesBelow;
import static io.railyard.deployment.FileSystemBlobStoreTesting.existsNoFollow;
import static io.railyard.deployment.FileSystemBlobStoreTesting.flipByte;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.testing.LeakDetector.KeepsFiles;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The behaviour of {@link FileSystemBlobStore} on one file system; subclasses name it. After every
 * test the store's invariants hold and no temp file is left.
 */
@KeepsFiles(
        "the blobs are the store's contents under test (each test asserts its reference counts);"
                + " the symlink targets and foreign files are its fixtures")
abstract class FileSystemBlobStoreContractTest {
    /** Small limit used where a test needs blobs above it. */
    private static final int SMALL_MAX_BYTES = 16;

    Path root;
    FileSystemBlobStore store;

    /** A fresh, writable directory to hold the store's root and files outside it. */
    abstract Path base() throws IOException;

    /** Releases what {@link #base()} created, after the checks of each test. */
    void closeBase() throws IOException {}

    @BeforeEach
    void openStore() throws IOException {
        root = base().resolve("store");
        store = FileSystemBlobStore.open(root);
    }

    @AfterEach
    void checkStore() throws IOException {
        assertThat(store.checkInvariants()).isTrue();
        assertThat(store.numTempFiles()).isZero();
        store.close();
        closeBase();
    }

    // ---- put and get ----

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 1 << 20})
    void put_thenGet_roundTripsTheBytes(int size) throws IOException {
        byte[] bytes = content(size, size);

        BlobKey key = store.put(JOB_A, bytes);

        assertThat(key).isEqualTo(FileSystemBlobStore.keyOf(bytes));
        assertThat(store.get(key)).isEqualTo(bytes);
        assertThat(Files.readAllBytes(store.blobPath(key))).isEqualTo(bytes);
        assertThat(store.referenceCount(key)).isEqualTo(1);
        assertHoldsExactly(store, key);
    }

    @Test
    void put_keyIsTheSha256InLowerCaseHex() throws IOException {
        assertThat(store.put(JOB_A, new byte[0]).hex()).isEqualTo(EMPTY_SHA256);
        assertThat(store.put(JOB_A, "abc".getBytes(US_ASCII)).hex()).isEqualTo(ABC_SHA256);
        assertThat(store.blobPath(new BlobKey(ABC_SHA256)))
                .isEqualTo(root.resolve("blobs").resolve("ba").resolve(ABC_SHA256));
    }

    @Test
    void put_sameContentTwice_storesOneFileWithTwoReferences() throws IOException {
        byte[] bytes = content(1, 1000);

        BlobKey first = store.put(JOB_A, bytes);
        BlobKey second = store.put(JOB_B, bytes.clone());
        BlobKey third = store.put(JOB_A, bytes.clone());

        assertThat(second).isEqualTo(first);
        assertThat(third).isEqualTo(first);
        assertThat(store.referenceCount(first)).isEqualTo(3);
        assertThat(store.numReferences()).isEqualTo(3);
        assertHoldsExactly(store, first);
    }

    @Test
    void put_differentContents_storesOneFileEach() throws IOException {
        BlobKey a = store.put(JOB_A, content(1, 100));
        BlobKey b = store.put(JOB_A, content(2, 100));

        assertThat(a).isNotEqualTo(b);
        assertThat(store.get(a)).isEqualTo(content(1, 100));
        assertThat(store.get(b)).isEqualTo(content(2, 100));
        assertHoldsExactly(store, a, b);
    }

    @Test
    void put_largerThanMaxBlobSize_isRejectedNamingSizeLimitAndSetting() throws IOException {
        FileSystemBlobStore small =
                FileSystemBlobStore.open(base().resolve("small"), SMALL_MAX_BYTES);

        assertThat(small.put(JOB_A, content(1, SMALL_MAX_BYTES))).isNotNull();
        assertThatThrownBy(() -> small.put(JOB_B, content(2, SMALL_MAX_BYTES + 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "a blob of 17 bytes (job 0000000000000000000000000000000b) is larger"
                                + " than maxBlobSizeBytes = 16 of the blob store in "
                                + small.root()
                                + "; open the store with a larger limit");
        assertThat(small.numReferences()).isEqualTo(1);
        assertHoldsExactly(small, FileSystemBlobStore.keyOf(content(1, SMALL_MAX_BYTES)));
        small.close();
    }

    @Test
    void get_missingKey_throwsBlobNotFoundNamingKeyAndPath() {
        BlobKey key = new BlobKey(ABC_SHA256);

        assertThatThrownBy(() -> store.get(key))
                .isInstanceOf(BlobNotFoundException.class)
                .hasMessage("blob " + ABC_SHA256 + " not found in " + store.blobPath(key));
    }

    @Test
    void get_missingKeyInAnExistingShard_throwsBlobNotFound() throws IOException {
        BlobKey stored = store.put(JOB_A, "abc".getBytes(US_ASCII));
        BlobKey sameShard = new BlobKey("ba" + "0".repeat(62));

        assertThatThrownBy(() -> store.get(sameShard))
                .isInstanceOf(BlobNotFoundException.class)
                .hasMessage("blob " + sameShard + " not found in " + store.blobPath(sameShard));
        assertHoldsExactly(store, stored);
    }

    // ---- references ----

    @Test
    void release_lastReference_deletesTheBlob_inAnyOrder() throws IOException {
        BlobKey key = store.put(JOB_A, content(3, 10));
        store.put(JOB_B, content(3, 10));

        store.release(JOB_B, key);
        assertThat(store.referenceCount(key)).isEqualTo(1);
        assertThat(store.get(key)).isEqualTo(content(3, 10));
        assertHoldsExactly(store, key);

        store.release(JOB_A, key);
        assertThat(store.referenceCount(key)).isZero();
        assertHoldsExactly(store);
        assertThatThrownBy(() -> store.get(key)).isInstanceOf(BlobNotFoundException.class);
    }

    @Test
    void release_sameJobPutTwice_needsTwoReleases() throws IOException {
        BlobKey key = store.put(JOB_A, content(4, 10));
        store.put(JOB_A, content(4, 10));

        store.release(JOB_A, key);
        assertHoldsExactly(store, key);
        store.release(JOB_A, key);
        assertHoldsExactly(store);
    }

    @Test
    void release_referenceNotHeld_throwsIllegalStateNamingJobAndKey() throws IOException {
        BlobKey key = store.put(JOB_A, content(5, 10));
        BlobKey other = store.put(JOB_B, content(6, 10));
        store.put(JOB_B, content(6, 10));

        assertThatThrownBy(() -> store.release(JOB_B, key))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(
                        "job "
                                + JOB_B
                                + " holds no reference to blob "
                                + key
                                + " (it holds 2 references to other blobs); release a key once"
                                + " per put that returned it");
        store.release(JOB_A, key);
        assertThatThrownBy(() -> store.release(JOB_A, key))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(
                        "job "
                                + JOB_A
                                + " holds no reference to blob "
                                + key
                                + " (it holds 0 references to other blobs); release a key once"
                                + " per put that returned it");
        assertThat(store.referenceCount(other)).isEqualTo(2);
        assertHoldsExactly(store, other);
    }

    @Test
    void releaseJob_dropsAllItsReferences_keepsBlobsOthersHold() throws IOException {
        BlobKey onlyA = store.put(JOB_A, content(7, 10));
        store.put(JOB_A, content(7, 10));
        BlobKey shared = store.put(JOB_A, content(8, 10));
        store.put(JOB_B, content(8, 10));

        store.releaseJob(JOB_A);

        assertThat(store.referenceCount(onlyA)).isZero();
        assertThat(store.referenceCount(shared)).isEqualTo(1);
        assertHoldsExactly(store, shared);
        store.releaseJob(JOB_A); // nothing left: a no-op
        store.releaseJob(JOB_B);
        assertThat(store.numReferences()).isZero();
        assertHoldsExactly(store);
    }

    @Test
    void releaseJob_deletionFails_keepsThatReference_andCanBeRetried() throws IOException {
        BlobKey stuck = store.put(JOB_A, content(9, 10));
        BlobKey other = store.put(JOB_A, content(10, 10));
        Path path = store.blobPath(stuck);
        Files.delete(path);
        Files.createDirectories(path.resolve("child")); // a non-empty directory cannot be deleted

        assertThatThrownBy(() -> store.releaseJob(JOB_A))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith(
                        "cannot delete blob "
                                + stuck
                                + " at "
                                + path
                                + " after the last reference (of job "
                                + JOB_A
                                + ") was released; the reference is kept, so the release can be"
                                + " retried: java.nio.file.DirectoryNotEmptyException")
                .hasCauseInstanceOf(DirectoryNotEmptyException.class);
        assertThat(store.referenceCount(stuck)).isEqualTo(1);
        assertThat(store.referenceCount(other)).isZero();
        assertThat(store.numReferences()).isEqualTo(1);

        Files.delete(path.resolve("child"));
        store.releaseJob(JOB_A);
        assertThat(store.numReferences()).isZero();
        assertHoldsExactly(store);
    }

    @Test
    void release_deletionFails_keepsTheReference() throws IOException {
        BlobKey key = store.put(JOB_A, content(11, 10));
        Path path = store.blobPath(key);
        Files.delete(path);
        Files.createDirectories(path.resolve("child"));

        assertThatThrownBy(() -> store.release(JOB_A, key))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("cannot delete blob " + key + " at " + path);
        assertThat(store.referenceCount(key)).isEqualTo(1);

        Files.delete(path.resolve("child"));
        store.release(JOB_A, key);
        assertHoldsExactly(store);
    }

    @Test
    void referenceCount_unknownKey_isZero() {
        assertThat(store.referenceCount(new BlobKey(ABC_SHA256))).isZero();
        assertThat(store.numReferences()).isZero();
    }

    // ---- corruption (ARCHITECTURE.md, Reliability row 15) ----

    @Test
    void get_flippedByte_throwsCorruptBlob_deletesIt_andPutRepairsIt() throws IOException {
        byte[] bytes = content(12, 4096);
        BlobKey key = store.put(JOB_A, bytes);
        Path path = store.blobPath(key);
        flipByte(path, 1234);
        byte[] damaged = Files.readAllBytes(path);

        assertThatThrownBy(() -> store.get(key))
                .isInstanceOf(CorruptBlobException.class)
                .hasMessage(
                        "blob "
                                + key
                                + " in "
                                + path
                                + " is corrupt: its 4096 bytes hash to "
                                + FileSystemBlobStore.keyOf(damaged)
                                + "; the blob was deleted: put its content again (re-encode or"
                                + " refetch it)")
                .satisfies(e -> assertThat(((CorruptBlobException) e).key()).isEqualTo(key));
        assertThat(existsNoFollow(path)).isFalse();
        assertThat(store.referenceCount(key)).isEqualTo(1); // the job still holds it
        assertThatThrownBy(() -> store.get(key)).isInstanceOf(BlobNotFoundException.class);

        assertThat(store.put(JOB_A, bytes)).isEqualTo(key);
        assertThat(store.get(key)).isEqualTo(bytes);
        store.releaseJob(JOB_A);
        assertHoldsExactly(store);
    }

    @Test
    void get_truncatedBlob_throwsCorruptBlob_andDeletesIt() throws IOException {
        BlobKey key = store.put(JOB_A, "abc".getBytes(US_ASCII));
        Path path = store.blobPath(key);
        Files.write(path, "ab".getBytes(US_ASCII));

        assertThatThrownBy(() -> store.get(key))
                .isInstanceOf(CorruptBlobException.class)
                .hasMessage(
                        "blob "
                                + key
                                + " in "
                                + path
                                + " is corrupt: its 2 bytes hash to "
                                + FileSystemBlobStore.keyOf("ab".getBytes(US_ASCII))
                                + "; the blob was deleted: put its content again (re-encode or"
                                + " refetch it)");
        assertThat(existsNoFollow(path)).isFalse();
        store.release(JOB_A, key); // releasing a blob deleted as corrupt works
        assertHoldsExactly(store);
    }

    @Test
    void get_fileLargerThanMaxBlobSize_throwsCorruptBlobWithoutReadingIt() throws IOException {
        FileSystemBlobStore small =
                FileSystemBlobStore.open(base().resolve("small"), SMALL_MAX_BYTES);
        BlobKey key = small.put(JOB_A, content(13, SMALL_MAX_BYTES));
        Path path = small.blobPath(key);
        Files.write(path, content(13, SMALL_MAX_BYTES + 1));

        assertThatThrownBy(() -> small.get(key))
                .isInstanceOf(CorruptBlobException.class)
                .hasMessage(
                        "blob "
                                + key
                                + " in "
                                + path
                                + " is corrupt: it has 17 bytes, more than maxBlobSizeBytes = 16,"
                                + " which a put never writes; the blob was deleted: put its"
                                + " content again (re-encode or refetch it)");
        assertThat(existsNoFollow(path)).isFalse();
        small.releaseJob(JOB_A);
        assertHoldsExactly(small);
        small.close();
    }

    // ---- links and other entries in the store (ARCHITECTURE.md, Reliability row 16) ----

    @Test
    void get_symlinkInPlaceOfBlob_isRejectedUnread_targetUntouched() throws IOException {
        byte[] bytes = content(14, 100);
        BlobKey key = store.put(JOB_A, bytes);
        Path path = store.blobPath(key);
        // The link's target even holds the right content: following it would "verify".
        Path target = Files.write(base().resolve("outside"), bytes);
        Files.delete(path);
        Files.createSymbolicLink(path, target);

        assertThatThrownBy(() -> store.get(key))
                .isInstanceOf(IOException.class)
                .hasMessage(
                        "blob "
                                + key
                                + ": "
                                + path
                                + " is a symbolic link, not a regular file; the blob store never"
                                + " follows links and did not read it: remove it (a put of the"
                                + " content then stores the blob again)");
        assertThat(Files.isSymbolicLink(path)).isTrue();
        assertThatThrownBy(() -> store.put(JOB_B, bytes))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(path + " is a symbolic link, not a regular file");
        assertThat(store.referenceCount(key)).isEqualTo(1);

        store.release(JOB_A, key); // deletes the link, not its target
        assertThat(existsNoFollow(path)).isFalse();
        assertThat(Files.readAllBytes(target)).isEqualTo(bytes);
        assertHoldsExactly(store);
    }

    @Test
    void get_symlinkInPlaceOfShard_isRejectedUnread() throws IOException {
        byte[] bytes = "abc".getBytes(US_ASCII);
        Path outside = Files.createDirectories(base().resolve("outside"));
        Files.write(outside.resolve(ABC_SHA256), bytes);
        Path shard = root.resolve("blobs").resolve("ba");
        Files.createSymbolicLink(shard, outside);
        BlobKey key = new BlobKey(ABC_SHA256);

        assertThatThrownBy(() -> store.get(key))
                .isInstanceOf(IOException.class)
                .hasMessage(
                        "blob "
                                + key
                                + ": "
                                + shard
                                + " is a symbolic link, not a directory; the blob store never"
                                + " follows links and did not read it: remove it (a put of the"
                                + " content then stores the blob again)");
        assertThatThrownBy(() -> store.put(JOB_A, bytes))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(shard + " is a symbolic link, not a directory");
        assertThat(Files.readAllBytes(outside.resolve(ABC_SHA256))).isEqualTo(bytes);
        assertThat(store.numReferences()).isZero();
        Files.delete(shard);
    }

    @Test
    void get_directoryInPlaceOfBlob_isRejected() throws IOException {
        BlobKey key = new BlobKey(ABC_SHA256);
        Files.createDirectories(store.blobPath(key));

        assertThatThrownBy(() -> store.get(key))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith(
                        "blob " + key + ": " + store.blobPath(key) + " is a directory, not a");
        Files.delete(store.blobPath(key));
    }

    // ---- startup (ARCHITECTURE.md, Reliability rows 17 and 31) ----

    @Test
    void open_afterCrash_deletesStaleTempFilesAndUnreferencedBlobs() throws IOException {
        BlobKey left = store.put(JOB_A, content(15, 100));
        Path tmp = root.resolve("tmp");
        Files.write(tmp.resolve(left.hex() + ".7.tmp"), content(15, 50)); // write cut short
        Files.createDirectories(tmp.resolve("stray-directory"));
        Path outside = Files.write(base().resolve("outside"), content(16, 10));
        Files.createSymbolicLink(root.resolve("blobs").resolve("link"), outside);

        store.close(); // the crashed process's lock went with it
        FileSystemBlobStore reopened = FileSystemBlobStore.open(root);

        assertThat(reopened.numReferences()).isZero();
        assertThat(reopened.referenceCount(left)).isZero();
        assertHoldsExactly(reopened);
        assertThat(entriesBelow(root)).containsExactly(FileSystemBlobStore.MARKER_FILE);
        assertThat(Files.readAllBytes(outside)).isEqualTo(content(16, 10));
        BlobKey again = reopened.put(JOB_A, content(15, 100));
        assertThat(reopened.get(again)).isEqualTo(content(15, 100));
        reopened.releaseJob(JOB_A);
        assertHoldsExactly(reopened);
        store = reopened; // the abandoned instance's references died with "its process"
    }

    @Test
    void open_nonEmptyDirectoryWithoutMarker_isRefused_andLeftAlone() throws IOException {
        Path foreign = Files.createDirectories(base().resolve("home"));
        Path precious =
                Files.write(
                        Files.createDirectories(foreign.resolve("tmp")).resolve("x"),
                        new byte[] {1});

        assertThatThrownBy(() -> FileSystemBlobStore.open(foreign))
                .isInstanceOf(IOException.class)
                .hasMessage(
                        "refusing to open a blob store in "
                                + foreign
                                + ": the directory is not empty and has no railyard-blob-store"
                                + " file, and opening a store deletes what is below blobs/ and"
                                + " tmp/; choose a new or empty directory");
        assertThat(Files.readAllBytes(precious)).containsExactly(1);
    }

    @Test
    void open_blobsDirectoryIsASymlink_isRefused_targetUntouched() throws IOException {
        Path outside = Files.createDirectories(base().resolve("outside"));
        Path file = Files.write(outside.resolve("keep"), new byte[] {1});
        Path blobs = root.resolve("blobs");
        Files.delete(blobs); // empty in a fresh store
        Files.createSymbolicLink(blobs, outside);
        store.close();

        assertThatThrownBy(() -> FileSystemBlobStore.open(root))
                .isInstanceOf(IOException.class)
                .hasMessage(
                        blobs
                                + " is a symbolic link, not a directory; the blob store never"
                                + " follows links: remove it");
        assertThat(Files.readAllBytes(file)).containsExactly(1);
        Files.delete(blobs);
        store = FileSystemBlobStore.open(root);
    }

    @Test
    void open_maxBlobSizeOutOfRange_isRejectedNamingSetting() {
        assertThatThrownBy(() -> FileSystemBlobStore.open(root, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "maxBlobSizeBytes must be in [1, 2147483639] (a blob is read into one"
                                + " byte array), was 0");
        assertThatThrownBy(() -> FileSystemBlobStore.open(root, Integer.MAX_VALUE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageEndingWith("was 2147483647");
    }

    @Test
    void open_defaults() {
        assertThat(store.maxBlobSizeBytes()).isEqualTo(256 << 20);
        assertThat(store.root()).isEqualTo(root);
    }

    // ---- concurrency ----

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void concurrentPutGetRelease_sameAndDifferentContents_endsWithNoFilesNorReferences(long seed)
            throws Exception {
        // Few, small contents: threads collide on the same keys all the time.
        byte[][] contents = new byte[6][];
        for (int i = 0; i < contents.length; i++) {
            contents[i] = content(seed * 100 + i, i * 200); // sizes 0 to 1000 bytes
        }

        runConcurrently(NUM_THREADS, thread -> runWorker(seed * 1000 + thread, thread, contents));

        assertThat(store.numReferences()).isZero();
        assertHoldsExactly(store);
    }

    @Test
    void concurrentPut_sameNewContent_storesOneFile_thenConcurrentReleaseDeletesIt()
            throws Exception {
        byte[] bytes = content(17, 64 * 1024);
        BlobKey key = FileSystemBlobStore.keyOf(bytes);

        runConcurrently(NUM_THREADS, thread -> store.put(new JobId(thread, 0), bytes));
        assertThat(store.referenceCount(key)).isEqualTo(NUM_THREADS);
        assertHoldsExactly(store, key);

        runConcurrently(NUM_THREADS, thread -> store.release(new JobId(thread, 0), key));
        assertThat(store.referenceCount(key)).isZero();
        assertHoldsExactly(store);
    }

    private static final int NUM_THREADS = 8;
    private static final int OPS_PER_THREAD = 2000;

    /** One thread's random walk over puts, gets and releases of its own two jobs. */
    private void runWorker(long seed, int thread, byte[][] contents) throws IOException {
        Random random = new Random(seed);
        JobId[] jobs = {new JobId(thread, 0), new JobId(thread, 1)};
        List<List<Integer>> held = List.of(new ArrayList<>(), new ArrayList<>());
        for (int op = 0; op < OPS_PER_THREAD; op++) {
            int j = random.nextInt(jobs.length);
            List<Integer> mine = held.get(j);
            int choice = random.nextInt(10);
            if (choice < 4 || mine.isEmpty()) {
                int i = random.nextInt(contents.length);
                assertThat(store.put(jobs[j], contents[i]))
                        .isEqualTo(FileSystemBlobStore.keyOf(contents[i]));
                mine.add(i);
            } else if (choice < 7) {
                // A blob this thread holds a reference to must be readable, whatever others do.
                byte[] expected = contents[mine.get(random.nextInt(mine.size()))];
                BlobKey key = FileSystemBlobStore.keyOf(expected);
                assertThat(store.get(key)).as("seed %s", seed).isEqualTo(expected);
                assertThat(store.referenceCount(key)).isGreaterThanOrEqualTo(1);
            } else if (choice < 9) {
                int i = mine.remove(random.nextInt(mine.size()));
                store.release(jobs[j], FileSystemBlobStore.keyOf(contents[i]));
            } else {
                store.releaseJob(jobs[j]);
                mine.clear();
            }
        }
        for (JobId job : jobs) {
            store.releaseJob(job);
        }
    }

    /** A task of one thread, numbered from 0. */
    private interface ThreadTask {
        void run(int thread) throws Exception;
    }

    /** Runs {@code task} on {@code numThreads} threads released at once; rethrows failures. */
    private static void runConcurrently(int numThreads, ThreadTask task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(numThreads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < numThreads; t++) {
                int thread = t;
                futures.add(
                        pool.submit(
                                () -> {
                                    start.await();
                                    task.run(thread);
                                    return null;
                                }));
            }
            start.countDown();
            for (Future<?> future : futures) {
                future.get(10, TimeUnit.MINUTES); // a guard against a hang, not a measurement
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
