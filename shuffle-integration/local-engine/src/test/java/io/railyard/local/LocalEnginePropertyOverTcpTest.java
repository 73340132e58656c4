package io.railyard.local;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import io.railyard.transport.TransportOptions;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Every test of {@link LocalEnginePropertyTest}, with every read — of a worker's own partitions too
 * — over TCP through the workers' data servers on loopback ({@code run --transport tcp}).
 */
class LocalEnginePropertyOverTcpTest extends LocalEnginePropertyTest {
    @Override
    LocalEngine engine(
            Path parent, int workers, int slots, ShuffleOptions options, PartitionKind blocking)
            throws IOException {
        return new LocalEngine(parent, workers, slots, options, blocking, TransportOptions.DEFAULT);
    }
}
