package io.railyard.deployment;

import io.railyard.testing.LeakDetector;
import io.railyard.testing.LeakGauge;

/**
 * The blob references every store of the process holds ({@link BlobStore#referencesInProcess()}),
 * which {@link LeakDetector} expects back at their baseline after every test of the modules that
 * list it in {@code META-INF/services/io.railyard.testing.LeakGauge} (this module's test-jar
 * carries the entry): a JobManager core or a test that does not release its job's descriptors fails
 * there.
 */
public final class BlobLeakGauge implements LeakGauge {
    @Override
    public String name() {
        return "blob references (all stores)";
    }

    @Override
    public long value() {
        return BlobStore.referencesInProcess();
    }
}
