package io.railyard.testing;

/**
 * A process-wide count that {@link LeakDetector} expects back at its baseline when a test ends:
 * e.g. the pages held across every network-buffer pool, or the pools not yet closed. A module's
 * tests contribute gauges by listing their implementations in {@code
 * META-INF/services/io.railyard.testing.LeakGauge}; they are found with {@link
 * java.util.ServiceLoader}. {@link #value()} is called twice per test (before and after), from the
 * test's lifecycle thread; it must be cheap and must not throw.
 */
public interface LeakGauge {
    /** What is counted, named in the failure: e.g. "network-buffer pages in use". */
    String name();

    /** The count now. */
    long value();
}
