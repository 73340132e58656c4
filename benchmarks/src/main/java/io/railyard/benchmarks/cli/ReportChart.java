package io.railyard.benchmarks.cli;

import com.google.common.collect.ImmutableList;
import io.railyard.benchmarks.procedures.ScaleReport;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

/**
 * The scale report as a PNG bar chart (XChart, headless): milliseconds per procedure on a log axis,
 * Railyard beside Flink measured live (when present) and Flink 1.14's published figures.
 */
final class ReportChart {
    private static final double FLOOR_MILLIS = 1e-4; // a log axis needs a positive minimum

    private ReportChart() {}

    /** Writes the chart of {@code report} to {@code out} as a PNG. */
    static void write(ScaleReport report, OutputStream out) throws IOException {
        System.setProperty("java.awt.headless", "true");
        CategoryChart chart =
                new CategoryChartBuilder()
                        .width(1200)
                        .height(600)
                        .title(
                                String.format(
                                        Locale.ROOT,
                                        "Railyard vs Flink, source -> sink ALL_TO_ALL BLOCKING,"
                                                + " P = %,d",
                                        report.parallelism()))
                        .xAxisTitle("procedure")
                        .yAxisTitle("ms (log)")
                        .build();
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setYAxisMin(FLOOR_MILLIS);
        chart.getStyler().setXAxisLabelRotation(30);
        List<String> labels = new ArrayList<>();
        List<Double> railyard = new ArrayList<>();
        List<Double> live = new ArrayList<>();
        List<Double> published = new ArrayList<>();
        ScaleReport.FlinkColumn flink = report.flink();
        for (ScaleReport.Procedure procedure : report.procedures()) {
            labels.add(procedure.key());
            railyard.add(Math.max(FLOOR_MILLIS, procedure.millis()));
            Double flinkMillis = flink == null ? null : flink.millis().get(procedure.key());
            live.add(flinkMillis == null ? FLOOR_MILLIS : Math.max(FLOOR_MILLIS, flinkMillis));
            published.add(parseMillis(ScaleReport.published(procedure.key())));
        }
        chart.addSeries("Railyard", labels, railyard);
        if (flink != null) {
            chart.addSeries("Flink " + flink.version() + " (live)", labels, live);
        }
        chart.addSeries("Flink 1.14 (published, P = 10,000)", labels, published);
        BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
    }

    private static double parseMillis(@Nullable ImmutableList<String> figures) {
        if (figures == null) {
            return FLOOR_MILLIS;
        }
        return Double.parseDouble(figures.get(1).replace(",", "").replace(" ms", ""));
    }
}
