package io.railyard.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.railyard.testing.LeakDetector.KeepsFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;

/**
 * {@link LeakDetector} fails a test that leaves a thread, a descriptor or a file behind, naming it,
 * and passes one that cleans up (or declares its files with {@link KeepsFiles}). The sample tests
 * are nested classes (not run by themselves: the build runs top-level test classes only); each leak
 * is undone here after the sample has run.
 */
class LeakDetectorTest {
    private static final List<AutoCloseable> LEFT_BEHIND = new ArrayList<>();

    @AfterEach
    void undoLeaks() throws Exception {
        for (AutoCloseable leak : LEFT_BEHIND) {
            leak.close();
        }
        LEFT_BEHIND.clear();
    }

    @Test
    void aThreadLeftRunning_failsTheTestNamingIt() {
        assertThat(failure(LeaksAThread.class))
                .contains("thread: 'leaky-sample-thread'")
                .contains("leaked by leaks()");
    }

    @Test
    void aLibraryDaemonThreadLeftRunning_failsTheTestNamingIt() {
        assertThat(failure(LeaksALibraryDaemon.class))
                .contains("thread: 'railyard-sample-daemon'")
                .doesNotContain("other-daemon");
    }

    @Test
    void aModuleWithoutTheTemporaryDirectoryCheck_keepsItsFiles() {
        Events tests =
                EngineTestKit.engine("junit-jupiter")
                        .configurationParameter(LeakDetector.GRACE_KEY, "100")
                        .configurationParameter(LeakDetector.TEMP_DIR_FILES_KEY, "false")
                        .selectors(selectClass(LeaksAFile.class))
                        .execute()
                        .testEvents();

        assertThat(tests.failed().count()).isZero();
    }

    @Test
    void aClassLeftOutByName_isNotChecked() {
        Events tests =
                EngineTestKit.engine("junit-jupiter")
                        .configurationParameter(LeakDetector.GRACE_KEY, "100")
                        .configurationParameter(
                                LeakDetector.EXCLUDED_CLASSES_KEY, ".*\\$LeaksAFile")
                        .selectors(selectClass(LeaksAFile.class))
                        .execute()
                        .testEvents();

        assertThat(tests.failed().count()).isZero();
        assertThat(tests.succeeded().count()).isEqualTo(1);
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void aDescriptorLeftOpen_failsTheTestNamingTheFile() {
        assertThat(failure(LeaksADescriptor.class))
                .containsPattern("open file descriptor: \\d+ -> .*leaky-descriptor");
    }

    @Test
    void aFileLeftInATemporaryDirectory_failsTheTestNamingIt() {
        assertThat(failure(LeaksAFile.class)).contains("file in ").contains(": left/behind.data");
    }

    @Test
    void cleanTestsAndDeclaredFiles_pass() {
        Events tests = run(CleansUp.class);
        assertThat(tests.failed().count()).as("failed").isZero();
        assertThat(tests.succeeded().count()).as("succeeded").isEqualTo(2);
    }

    private static Events run(Class<?> sample) {
        return EngineTestKit.engine("junit-jupiter")
                .configurationParameter(LeakDetector.GRACE_KEY, "100")
                .selectors(selectClass(sample))
                .execute()
                .testEvents();
    }

    private static String failure(Class<?> sample) {
        Events tests = run(sample);
        assertThat(tests.failed().count()).as("failed tests of %s", sample).isEqualTo(1);
        Event failed = tests.failed().list().get(0);
        Throwable thrown =
                failed.getPayload(TestExecutionResult.class)
                        .flatMap(TestExecutionResult::getThrowable)
                        .orElseThrow();
        assertThat(thrown).isInstanceOf(AssertionError.class);
        return String.valueOf(thrown.getMessage());
    }

    @ExtendWith(LeakDetector.class)
    static class LeaksAThread {
        @Test
        void leaks() {
            CountDownLatch release = new CountDownLatch(1);
            Thread thread = new Thread(() -> awaitQuietly(release), "leaky-sample-thread");
            thread.start();
            LEFT_BEHIND.add(
                    () -> {
                        release.countDown();
                        thread.join();
                    });
        }
    }

    /** A daemon thread of Railyard's (by its name) counts; another daemon does not. */
    @ExtendWith(LeakDetector.class)
    static class LeaksALibraryDaemon {
        @Test
        void leaks() {
            CountDownLatch release = new CountDownLatch(1);
            for (String name : List.of("railyard-sample-daemon", "other-daemon")) {
                Thread thread = new Thread(() -> awaitQuietly(release), name);
                thread.setDaemon(true);
                thread.start();
                LEFT_BEHIND.add(
                        () -> {
                            release.countDown();
                            thread.join();
                        });
            }
        }
    }

    @ExtendWith(LeakDetector.class)
    static class LeaksADescriptor {
        @TempDir Path dir;

        @Test
        void leaks() throws IOException {
            Path file = Files.createFile(dir.resolve("leaky-descriptor"));
            LEFT_BEHIND.add(FileChannel.open(file, StandardOpenOption.READ));
        }
    }

    @ExtendWith(LeakDetector.class)
    static class LeaksAFile {
        @Test
        void leaks(@TempDir Path dir) throws IOException {
            Files.createDirectories(dir.resolve("left"));
            Files.writeString(dir.resolve("left/behind.data"), "x");
        }
    }

    @ExtendWith(LeakDetector.class)
    static class CleansUp {
        @TempDir Path dir;

        @Test
        void closesWhatItOpens() throws Exception {
            Path file = Files.writeString(dir.resolve("used"), "x");
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                assertThat(channel.size()).isEqualTo(1);
            }
            Files.delete(file);
            Thread thread = new Thread(() -> {}, "short-lived");
            thread.start();
            thread.join();
        }

        @Test
        @KeepsFiles("the sample's own fixture")
        void declaresItsFiles() throws IOException {
            Files.writeString(dir.resolve("fixture"), "x");
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
