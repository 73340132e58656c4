package io.railyard.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.shuffle.ShuffleOptions;
import io.railyard.shuffle.partition.PartitionKind;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.NettyShuffleEnvironmentOptions;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.junit.jupiter.api.Test;

/** The plugin's keys: defaults, Railyard's own keys under the prefix, one-line errors. */
class PluginOptionsTest {
    @Test
    void defaults_serveBlockingAndHybrid_sortBased_withFlinksPageSize() {
        PluginOptions options = PluginOptions.from(new Configuration());

        assertThat(options.fallback()).isEqualTo(PluginOptions.Fallback.PIPELINED);
        assertThat(options.kindOf(ResultPartitionType.BLOCKING)).isEqualTo(PartitionKind.SORT);
        assertThat(options.kindOf(ResultPartitionType.HYBRID_FULL))
                .isEqualTo(PartitionKind.HYBRID_FULL);
        assertThat(options.kindOf(ResultPartitionType.HYBRID_SELECTIVE))
                .isEqualTo(PartitionKind.HYBRID_SELECTIVE);
        assertThat(options.serves(ResultPartitionType.PIPELINED_BOUNDED)).isFalse();
        assertThat(options.serves(ResultPartitionType.BLOCKING_PERSISTENT)).isFalse();
        assertThat(options.shuffle().pageSizeBytes()).isEqualTo(32 << 10);
        assertThat(options.shuffleFor(100L << 20).totalMemoryBytes()).isEqualTo(80L << 20);
    }

    @Test
    void compression_followsFlinksCodec_unlessRailyardsKeySaysOtherwise() {
        Configuration config = new Configuration();
        assertThat(PluginOptions.from(config).shuffle().compression())
                .isEqualTo(ShuffleOptions.Compression.LZ4); // Flink's default codec is LZ4

        config.set(
                NettyShuffleEnvironmentOptions.SHUFFLE_COMPRESSION_CODEC,
                NettyShuffleEnvironmentOptions.CompressionCodec.NONE);
        assertThat(PluginOptions.from(config).shuffle().compression())
                .isEqualTo(ShuffleOptions.Compression.NONE);

        config.set(
                NettyShuffleEnvironmentOptions.SHUFFLE_COMPRESSION_CODEC,
                NettyShuffleEnvironmentOptions.CompressionCodec.ZSTD);
        assertThat(PluginOptions.from(config).shuffle().compression())
                .isEqualTo(ShuffleOptions.Compression.LZ4);

        config.setString("railyard." + ShuffleOptions.COMPRESSION_KEY, "none");
        assertThat(PluginOptions.from(config).shuffle().compression())
                .isEqualTo(ShuffleOptions.Compression.NONE);
    }

    @Test
    void aPoolTooSmallForOneWriterAndTheReadScheduler_isRefused_namingTheLeastMemory() {
        PluginOptions options = PluginOptions.from(new Configuration());
        int least = options.leastPoolPages();
        long page = options.shuffle().pageSizeBytes();
        long enough = (long) Math.ceil(least * page / 0.8);

        assertThat(options.shuffleFor(enough).totalMemoryBytes() / page).isEqualTo(least);
        assertThatThrownBy(() -> options.shuffleFor(enough - page))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fewer than the " + least)
                .hasMessageContaining(
                        "raise taskmanager.memory.network.min/max to at least " + enough + " bytes")
                .hasMessageNotContaining("\n");
    }

    @Test
    void railyardsOwnKeys_takeThePrefix() {
        Configuration config = new Configuration();
        config.setString("railyard." + ShuffleOptions.GATE_PAGES_KEY, "8");
        config.setString("railyard." + ShuffleOptions.COMPRESSION_KEY, "none");
        config.setString(PluginOptions.BLOCKING_KEY, "HASH");
        config.setString(PluginOptions.FALLBACK_KEY, "all");

        PluginOptions options = PluginOptions.from(config);

        assertThat(options.shuffle().gatePages()).isEqualTo(8);
        assertThat(options.shuffle().compression()).isEqualTo(ShuffleOptions.Compression.NONE);
        assertThat(options.blocking()).isEqualTo(PartitionKind.HASH);
        assertThat(options.serves(ResultPartitionType.BLOCKING)).isFalse();
    }

    @Test
    void badValues_failInOneLine_namingTheKeyAndWhatIsAllowed() {
        assertFails(
                PluginOptions.FALLBACK_KEY,
                "some",
                "railyard.shuffle.fallback must be one of pipelined, all, was 'some'");
        assertFails(
                PluginOptions.MEMORY_FRACTION_KEY,
                "1.5",
                "railyard.shuffle.memory-fraction must be in (0, 1], was 1.5");
        assertFails(
                PluginOptions.MEMORY_FRACTION_KEY,
                "half",
                "railyard.shuffle.memory-fraction must be a number, was 'half'");
        assertFails(
                "railyard.shuffle.read.gate-pages",
                "0",
                "railyard.shuffle.read.gate-pages must be in [1, 1048576], was 0");
        assertFails(
                "railyard.shuffle.read.gate-pages",
                "many",
                "railyard.shuffle.read.gate-pages must be an integer, was 'many'");
        assertFails(
                "railyard.shuffle.compression",
                "zstd",
                "railyard.shuffle.compression must be none or lz4, was 'zstd'");
        assertThatThrownBy(() -> PluginOptions.from(config("railyard.shuffle.gate-pages", "8")))
                .hasMessageStartingWith(
                        "unknown key railyard.shuffle.gate-pages: the Railyard shuffle keys are railyard.{")
                .hasMessageNotContaining("\n");
    }

    private static void assertFails(String key, String value, String message) {
        assertThatThrownBy(() -> PluginOptions.from(config(key, value)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    private static Configuration config(String key, String value) {
        Configuration config = new Configuration();
        config.setString(key, value);
        return config;
    }
}
