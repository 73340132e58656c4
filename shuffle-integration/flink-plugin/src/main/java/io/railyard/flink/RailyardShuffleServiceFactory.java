package io.railyard.flink;

import org.apache.flink.runtime.io.network.api.writer.ResultPartitionWriter;
import org.apache.flink.runtime.io.network.partition.consumer.IndexedInputGate;
import org.apache.flink.runtime.shuffle.ShuffleDescriptor;
import org.apache.flink.runtime.shuffle.ShuffleEnvironment;
import org.apache.flink.runtime.shuffle.ShuffleEnvironmentContext;
import org.apache.flink.runtime.shuffle.ShuffleMaster;
import org.apache.flink.runtime.shuffle.ShuffleMasterContext;
import org.apache.flink.runtime.shuffle.ShuffleServiceFactory;

/**
 * Railyard's shuffle as a Flink shuffle service: set {@code shuffle-service-factory.class:
 * io.railyard.flink.RailyardShuffleServiceFactory} on the JobManager and every TaskManager, with
 * this module's jar (and its dependencies) on their class paths. The JobManager gets a {@link
 * RailyardShuffleMaster}, each TaskManager a {@link RailyardShuffleEnvironment}; the keys are in
 * {@link PluginOptions}.
 *
 * <p>Stateless; Flink instantiates it by its no-argument constructor.
 */
public final class RailyardShuffleServiceFactory
        implements ShuffleServiceFactory<
                ShuffleDescriptor, ResultPartitionWriter, IndexedInputGate> {

    /** What Flink's {@code ShuffleServiceLoader} calls. */
    public RailyardShuffleServiceFactory() {}

    /**
     * The JobManager's side: a {@link RailyardShuffleMaster}.
     *
     * @throws IllegalArgumentException naming a bad key of the plugin
     */
    @Override
    public ShuffleMaster<ShuffleDescriptor> createShuffleMaster(ShuffleMasterContext context) {
        return new RailyardShuffleMaster(context);
    }

    /**
     * A TaskManager's side: a {@link RailyardShuffleEnvironment}.
     *
     * @throws IllegalArgumentException naming a bad key, or network memory too small
     */
    @Override
    public ShuffleEnvironment<ResultPartitionWriter, IndexedInputGate> createShuffleEnvironment(
            ShuffleEnvironmentContext context) {
        return new RailyardShuffleEnvironment(context);
    }
}
