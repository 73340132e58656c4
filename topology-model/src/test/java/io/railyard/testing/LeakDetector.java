package io.railyard.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fails a test that leaves anything behind (reliability invariant 4, "resource conservation"): at
 * teardown — after the test's own {@code @AfterEach} methods — each of these must be back to what
 * it was before the test, or the test fails with one line per leak naming what leaked:
 *
 * <ul>
 *   <li>every {@link LeakGauge} found on the class path (a module's tests list theirs in {@code
 *       META-INF/services/io.railyard.testing.LeakGauge}: network-buffer pages in use, pools not
 *       closed, …);
 *   <li>the process's open file descriptors, read from {@code /proc/self/fd} where it exists (each
 *       new descriptor is named with what it points to; the JDK's own jar and library files, which
 *       the class loader opens on first use and keeps, are not counted);
 *   <li>live non-daemon threads, and Railyard's own threads (named {@code railyard-…}) daemon or
 *       not — a library's daemon thread left running is a leak all the same (each new one named);
 *   <li>regular files under the test's {@link TempDir} directories — its fields, static or not, and
 *       its method's parameters — where the shuffle and blob directories of tests live.
 * </ul>
 *
 * Cleanup may finish on another thread just after the test returns (an IO thread closing a file, a
 * worker thread ending), so a leak is reported only if it is still there after {@link
 * #GRACE_MILLIS} (or {@value #GRACE_KEY}). Registered for a whole module by JUnit's extension
 * auto-detection ({@code junit.jupiter.extensions.autodetection.enabled=true} in the module's
 * {@code junit-platform.properties} and this class named in {@code
 * META-INF/services/org.junit.jupiter.api.extension.Extension}), or per class with
 * {@code @ExtendWith}; a module may leave classes out by name ({@value #EXCLUDED_CLASSES_KEY}).
 * Cost per test: two listings of {@code /proc/self/fd}, of the threads and of the temporary
 * directories.
 */
public final class LeakDetector
        implements BeforeEachCallback, AfterEachCallback, InvocationInterceptor {
    /** How long teardown waits for counts to return before it reports a leak, by default. */
    public static final long GRACE_MILLIS = 5_000;

    /**
     * The JUnit configuration parameter naming, comma-separated, the files that are durable by
     * design and never count as leaked (a blob store's identity marker, say).
     */
    public static final String DURABLE_FILES_KEY = "railyard.leak-detector.durable-files";

    /** The JUnit configuration parameter that overrides {@link #GRACE_MILLIS}. */
    public static final String GRACE_KEY = "railyard.leak-detector.grace-millis";

    /**
     * The JUnit configuration parameter holding a regular expression: test classes whose fully
     * qualified name matches it are not checked (tests that run another engine in this process —
     * Apache Flink's mini cluster keeps threads and files of its own).
     */
    public static final String EXCLUDED_CLASSES_KEY = "railyard.leak-detector.excluded-classes";

    /**
     * The JUnit configuration parameter that turns the temporary-directory check off for a module
     * ({@code false}) whose tests write their fixtures and outputs there (the command-line tests);
     * descriptors, threads and gauges are still checked.
     */
    public static final String TEMP_DIR_FILES_KEY = "railyard.leak-detector.temp-dir-files";

    /** The prefix of every thread Railyard starts, counted whether a daemon or not. */
    private static final String LIBRARY_THREADS = "railyard-";

    private static final Path FD_DIR = Path.of("/proc/self/fd");
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(LeakDetector.class);
    private static final List<LeakGauge> GAUGES =
            ServiceLoader.load(LeakGauge.class).stream().map(ServiceLoader.Provider::get).toList();

    /**
     * Exempts a test method or class from the temporary-directory check only (descriptors, threads
     * and gauges are still checked): for tests whose scenario puts files there themselves — a file
     * in the way, a stale directory of a dead process, a child's log. The reason is required.
     */
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.METHOD, ElementType.TYPE})
    @Inherited
    public @interface KeepsFiles {
        /** Why the files are the test's own. */
        String value();
    }

    /** What a test started with. */
    private record Snapshot(
            Map<String, Long> gauges,
            Set<String> descriptors,
            Set<String> threads,
            Map<Path, Set<String>> files) {}

    @Override
    public void beforeEach(ExtensionContext context) {
        String excluded = context.getConfigurationParameter(EXCLUDED_CLASSES_KEY).orElse("");
        if (!excluded.isEmpty() && context.getRequiredTestClass().getName().matches(excluded)) {
            return; // no snapshot: afterEach checks nothing
        }
        List<Path> dirs = keepsFiles(context) ? List.of() : tempDirFields(context);
        context.getStore(NAMESPACE).put(Snapshot.class, take(dirs));
    }

    @Override
    public void interceptTestMethod(
            Invocation<@Nullable Void> invocation,
            ReflectiveInvocationContext<Method> invocationContext,
            ExtensionContext extensionContext)
            throws Throwable {
        watchParameters(invocationContext, extensionContext);
        invocation.proceed();
    }

    @Override
    public void interceptTestTemplateMethod(
            Invocation<@Nullable Void> invocation,
            ReflectiveInvocationContext<Method> invocationContext,
            ExtensionContext extensionContext)
            throws Throwable {
        watchParameters(invocationContext, extensionContext);
        invocation.proceed();
    }

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        Snapshot before = context.getStore(NAMESPACE).get(Snapshot.class, Snapshot.class);
        if (before == null) {
            return;
        }
        long grace =
                context.getConfigurationParameter(GRACE_KEY, Long::parseLong).orElse(GRACE_MILLIS);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(grace);
        Set<String> durable =
                Set.of(context.getConfigurationParameter(DURABLE_FILES_KEY).orElse("").split(","));
        List<String> leaks = leaks(before, durable);
        while (!leaks.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
            leaks = leaks(before, durable);
        }
        if (!leaks.isEmpty()) {
            throw new AssertionError(
                    "leaked by "
                            + context.getDisplayName()
                            + " (still there "
                            + grace
                            + " ms after teardown):\n  "
                            + String.join("\n  ", leaks));
        }
    }

    /** Adds the {@link TempDir} parameters of the test method to the directories watched. */
    private static void watchParameters(
            ReflectiveInvocationContext<Method> invocation, ExtensionContext context) {
        Snapshot snapshot = context.getStore(NAMESPACE).get(Snapshot.class, Snapshot.class);
        Parameter[] parameters = invocation.getExecutable().getParameters();
        List<Object> arguments = invocation.getArguments();
        if (snapshot == null || keepsFiles(context)) {
            return;
        }
        for (int i = 0; i < parameters.length && i < arguments.size(); i++) {
            if (parameters[i].isAnnotationPresent(TempDir.class)
                    && arguments.get(i) instanceof Path dir) {
                snapshot.files().put(dir, regularFiles(dir));
            }
        }
    }

    private static boolean keepsFiles(ExtensionContext context) {
        return !context.getConfigurationParameter(TEMP_DIR_FILES_KEY, Boolean::parseBoolean)
                        .orElse(true)
                || context.getRequiredTestMethod().isAnnotationPresent(KeepsFiles.class)
                || context.getRequiredTestClass().isAnnotationPresent(KeepsFiles.class);
    }

    private static Snapshot take(List<Path> dirs) {
        Map<Path, Set<String>> files = new LinkedHashMap<>();
        for (Path dir : dirs) {
            files.put(dir, regularFiles(dir));
        }
        return new Snapshot(gauges(), descriptors(), threads(), files);
    }

    private static List<String> leaks(Snapshot before, Set<String> durable) {
        List<String> leaks = new ArrayList<>();
        Map<String, Long> gauges = gauges();
        before.gauges()
                .forEach(
                        (name, was) -> {
                            long now = gauges.getOrDefault(name, was);
                            if (now != was) {
                                leaks.add(name + ": " + was + " before, " + now + " after");
                            }
                        });
        newOnes("open file descriptor", before.descriptors(), descriptors(), leaks);
        newOnes("thread", before.threads(), threads(), leaks);
        for (Map.Entry<Path, Set<String>> dir : before.files().entrySet()) {
            Set<String> now = regularFiles(dir.getKey());
            now.removeIf(file -> durable.contains(Path.of(file).getFileName().toString()));
            newOnes("file in " + dir.getKey(), dir.getValue(), now, leaks);
        }
        return leaks;
    }

    private static void newOnes(String what, Set<String> was, Set<String> now, List<String> out) {
        for (String item : now) {
            if (!was.contains(item)) {
                out.add(what + ": " + item);
            }
        }
    }

    private static Map<String, Long> gauges() {
        Map<String, Long> values = new LinkedHashMap<>();
        for (LeakGauge gauge : GAUGES) {
            values.put(gauge.name(), gauge.value());
        }
        return values;
    }

    /**
     * The process's open descriptors as "fd -> target", without those the JDK opens for itself and
     * keeps (jar and shared-library files, read on first use of a class; the random devices), nor
     * the listing's own descriptor. Empty where {@code /proc/self/fd} does not exist.
     */
    public static Set<String> descriptors() {
        Set<String> open = new TreeSet<>();
        if (!Files.isDirectory(FD_DIR)) {
            return open;
        }
        try (Stream<Path> entries = Files.list(FD_DIR)) {
            for (Path fd : (Iterable<Path>) entries::iterator) {
                String target = target(fd);
                if (target != null && !jdkOwned(target)) {
                    open.add(fd.getFileName() + " -> " + target);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + FD_DIR, e);
        }
        return open;
    }

    private static @Nullable String target(Path fd) {
        try {
            return Files.readSymbolicLink(fd).toString();
        } catch (NoSuchFileException e) {
            return null; // closed while listing (the listing's own descriptor, or another thread's)
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    private static boolean jdkOwned(String target) {
        return target.endsWith(".jar")
                || target.endsWith(".so")
                || target.endsWith("/modules")
                || target.startsWith("/proc/")
                // SecureRandom's NativePRNG opens both once, on first use, and keeps them.
                || target.equals("/dev/random")
                || target.equals("/dev/urandom")
                // The JDK's font manager opens a font file on first use (a chart) and keeps it.
                || target.endsWith(".ttf")
                || target.endsWith(".otf")
                // The JDK or the test runner opened a socket lazily during a test once (and kept
                // it), which is not the test's leak; the transport's own connections are counted
                // by its gauge (io.railyard.transport.TransportLeakGauges) instead.
                || target.startsWith("socket:");
    }

    private static Set<String> threads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(
                        t ->
                                t.isAlive()
                                        && (!t.isDaemon()
                                                || t.getName().startsWith(LIBRARY_THREADS)))
                // Netty's process-wide notifier: it starts when an event loop terminates (to tell
                // its group) and ends itself after one quiet second; no test owns it.
                .filter(t -> !t.getName().startsWith("globalEventExecutor-"))
                .map(t -> "'" + t.getName() + "' (id " + t.getId() + ")")
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> regularFiles(Path dir) {
        if (!Files.isDirectory(dir)) {
            return new TreeSet<>();
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile)
                    .map(p -> dir.relativize(p).toString())
                    .collect(Collectors.toCollection(TreeSet::new));
        } catch (IOException | UncheckedIOException e) {
            return new TreeSet<>(Set.of("(unreadable: " + e.getMessage() + ")"));
        }
    }

    /** The test instance's and class's {@link TempDir} fields that hold a path now. */
    private static List<Path> tempDirFields(ExtensionContext context) {
        List<Path> dirs = new ArrayList<>();
        Object instance = context.getTestInstance().orElse(null);
        for (Class<?> type = context.getRequiredTestClass();
                type != null && type != Object.class;
                type = type.getSuperclass()) {
            for (Field field : type.getDeclaredFields()) {
                if (!field.isAnnotationPresent(TempDir.class)
                        || !Path.class.isAssignableFrom(field.getType())) {
                    continue;
                }
                boolean isStatic = Modifier.isStatic(field.getModifiers());
                if (!isStatic && instance == null) {
                    continue;
                }
                try {
                    field.setAccessible(true);
                    if (field.get(isStatic ? null : instance) instanceof Path dir) {
                        dirs.add(dir);
                    }
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException("cannot read @TempDir field " + field, e);
                }
            }
        }
        return dirs;
    }
}
