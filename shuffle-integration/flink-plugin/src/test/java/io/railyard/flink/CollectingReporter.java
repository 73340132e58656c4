package io.railyard.flink;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A metric reporter keeping every metric a cluster in this JVM registers, by its full identifier,
 * so a test reads the gauges a reporter would. Flink finds the factory through {@code
 * META-INF/services} and creates it for {@code metrics.reporter.<name>.factory.class}.
 */
public final class CollectingReporter implements MetricReporter, MetricReporterFactory {
    /** Every metric registered and not removed, by identifier. */
    static final Map<String, Metric> METRICS = new ConcurrentHashMap<>();

    /** {@code metrics.reporter.collect.factory.class}, to start a cluster with. */
    static final String FACTORY_KEY = "metrics.reporter.collect.factory.class";

    @Override
    public MetricReporter createMetricReporter(Properties properties) {
        return this;
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        METRICS.put(group.getMetricIdentifier(name), metric);
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
        METRICS.remove(group.getMetricIdentifier(name), metric);
    }

    /** The values of the long gauges whose identifiers end with {@code suffix}. */
    static List<Long> gauges(String suffix) {
        return METRICS.entrySet().stream()
                .filter(entry -> entry.getKey().endsWith(suffix))
                .map(entry -> (Long) ((Gauge<?>) entry.getValue()).getValue())
                .toList();
    }
}
