package io.railyard.flink;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.flink.runtime.io.network.api.writer.ResultPartitionWriter;
import org.apache.flink.runtime.io.network.partition.consumer.IndexedInputGate;
import org.apache.flink.runtime.shuffle.ShuffleDescriptor;
import org.apache.flink.runtime.shuffle.ShuffleEnvironment;
import org.apache.flink.runtime.shuffle.ShuffleEnvironmentContext;
import org.apache.flink.runtime.shuffle.ShuffleMaster;
import org.apache.flink.runtime.shuffle.ShuffleMasterContext;
import org.apache.flink.runtime.shuffle.ShuffleServiceFactory;

/**
 * The plugin's factory, recording the environments Flink creates so a test can look into each
 * TaskManager's shuffle (held partitions, pages, files) after a job. Flink instantiates it by name.
 */
public final class RecordingShuffleServiceFactory
        implements ShuffleServiceFactory<
                ShuffleDescriptor, ResultPartitionWriter, IndexedInputGate> {
    /** Every environment created in this JVM, in order; tests clear it. */
    static final List<RailyardShuffleEnvironment> ENVIRONMENTS = new CopyOnWriteArrayList<>();

    private final RailyardShuffleServiceFactory factory = new RailyardShuffleServiceFactory();

    @Override
    public ShuffleMaster<ShuffleDescriptor> createShuffleMaster(ShuffleMasterContext context) {
        return factory.createShuffleMaster(context);
    }

    @Override
    public ShuffleEnvironment<ResultPartitionWriter, IndexedInputGate> createShuffleEnvironment(
            ShuffleEnvironmentContext context) {
        RailyardShuffleEnvironment environment = new RailyardShuffleEnvironment(context);
        ENVIRONMENTS.add(environment);
        return environment;
    }
}
