package io.railyard.benchmarks.cli;

import java.io.PrintStream;
import org.openjdk.jol.vm.VM;

/**
 * Keeps JOL's start-up warnings off stdout. JOL prints them to {@code System.out} when it first
 * touches the VM (e.g. "Unable to attach Serviceability Agent" without {@code
 * -Djdk.attach.allowAttachSelf=true}), which would corrupt a table or JSON piped from stdout.
 *
 * <p>(Naming JOL's agent as the jar's {@code Launcher-Agent-Class} would avoid the self-attach, but
 * the JVM then opens the 100 MB jar a second time before {@code main}, which raised the smallest
 * heap of {@code heap-probe} from 9 to 17 MiB.)
 */
final class JolOutput {
    private JolOutput() {}

    /** Initialises JOL now, with anything it prints going to stderr. Call once, before commands. */
    static void keepOffStdout() {
        if (System.getProperty("jol.magicFieldOffset") == null) {
            // JOL must walk lambdas' hidden classes (Flink's graphs are full of them); read once.
            System.setProperty("jol.magicFieldOffset", "true");
        }
        PrintStream out = System.out;
        System.setOut(System.err);
        try {
            VM.current();
        } finally {
            System.setOut(out);
        }
    }

    /** What {@link #offStdout} runs. */
    @FunctionalInterface
    interface Walk<T> {
        T run() throws Exception;
    }

    /**
     * Runs {@code walk} with {@code System.out} on stderr: JOL prints to stdout what it cannot read
     * during a walk too (e.g. "Error while accessing @Contended value" when it meets a {@code
     * Thread}). The command's own output goes to picocli's writer, which this does not touch.
     */
    static <T> T offStdout(Walk<T> walk) throws Exception {
        PrintStream out = System.out;
        System.setOut(System.err);
        try {
            return walk.run();
        } finally {
            System.setOut(out);
        }
    }
}
