package io.railyard.benchmarks.cli;

import io.railyard.simulation.SimulationResult;
import io.railyard.topology.JobGraph;
import it.unimi.dsi.fastutil.doubles.DoubleArrayList;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * {@code simulate --chart}: a PNG (XChart, headless). For the modes of one run, a Gantt chart per
 * mode stacked in one image (x: time, y: slot; each task attempt a bar on its slot's row, coloured
 * by job vertex; a finished attempt's time waiting in its slot in grey at the start of its bar, as
 * the simulator records how long it waited but not when; failed and cancelled attempts in red). For
 * a sweep, the makespan of each mode against the parallelism.
 *
 * <p>Each chart has at most vertices + 2 series (bars of one series are separated by NaN points,
 * which XChart draws as gaps): {@value #MAX_VERTEX_SERIES} vertices get a series of their own, the
 * rest share one. At most {@value #MAX_ROWS} slots' rows are drawn, the title says so. O(attempts)
 * time and memory.
 */
final class SimulateChart {
    /** The most slots drawn, each a row. */
    static final int MAX_ROWS = 2000;

    /** The most vertices with a series (and a colour) of their own. */
    static final int MAX_VERTEX_SERIES = 12;

    static final String WAITING = "waiting in slot (how long, not exactly when)";
    static final String FAILED = "failed/cancelled";

    private static final int WIDTH = 1400;
    private static final int SWATCH = 24;
    private static final int LEGEND_MARGIN = 20;

    /** Waiting below this share of an attempt's time is rounding, not drawn. */
    private static final double NOISE = 1e-9;

    private static final Color GREY = new Color(175, 175, 175);
    private static final Color RED = new Color(214, 39, 40);

    /** Colours of the vertices: neither grey nor red. */
    private static final Color[] PALETTE = {
        new Color(31, 119, 180),
        new Color(255, 127, 14),
        new Color(44, 160, 44),
        new Color(148, 103, 189),
        new Color(140, 86, 75),
        new Color(227, 119, 194),
        new Color(188, 189, 34),
        new Color(23, 190, 207),
        new Color(0, 0, 128),
        new Color(128, 128, 0),
        new Color(0, 100, 0),
        new Color(70, 40, 0),
        new Color(60, 60, 60)
    };

    private SimulateChart() {}

    /**
     * Writes the Gantt charts of {@code runs} to {@code out} as one PNG: the panels stacked, their
     * time axes alike, one legend below them all.
     */
    static void gantt(List<SimulateOutput.Run> runs, OutputStream out) throws IOException {
        System.setProperty("java.awt.headless", "true");
        double span = 0;
        for (SimulateOutput.Run run : runs) {
            span = Math.max(span, run.result().makespan());
        }
        List<BufferedImage> images = new ArrayList<>();
        Bars bars = null;
        boolean[] drawn = new boolean[0];
        for (SimulateOutput.Run run : runs) {
            int rows = Math.min(run.result().slots(), MAX_ROWS);
            bars = Bars.of(run.result(), rows);
            images.add(BitmapEncoder.getBufferedImage(panel(run, bars, rows, span)));
            drawn = Arrays.copyOf(drawn, bars.names.size()); // the same series in every mode
            for (int s = 0; s < drawn.length; s++) {
                drawn[s] |= !bars.x.get(s).isEmpty();
            }
        }
        if (bars != null) {
            images.add(legend(bars, drawn, new Color(images.get(0).getRGB(0, 0))));
        }
        int height = 0;
        for (BufferedImage image : images) {
            height += image.getHeight();
        }
        BufferedImage stacked = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D graphics = stacked.createGraphics();
        try {
            int y = 0;
            for (BufferedImage image : images) {
                graphics.drawImage(image, 0, y, null);
                y += image.getHeight();
            }
        } finally {
            graphics.dispose();
        }
        if (!ImageIO.write(stacked, "png", out)) {
            throw new IOException("no PNG writer in this Java runtime");
        }
    }

    /**
     * One mode's Gantt chart without a legend (so that every panel's plot has the same width), its
     * time axis from 0 to {@code span}.
     */
    private static XYChart panel(SimulateOutput.Run run, Bars bars, int rows, double span) {
        int plotHeight = Math.max(160, Math.min(640, rows * 18));
        XYChart chart =
                new XYChartBuilder()
                        .width(WIDTH)
                        .height(plotHeight + 90)
                        .title(title(run, rows))
                        .xAxisTitle("time (work units)")
                        .yAxisTitle("slot")
                        .build();
        XYStyler styler = chart.getStyler();
        styler.setLegendVisible(false);
        styler.setDefaultSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        styler.setXAxisMin(0.0);
        styler.setXAxisMax(span > 0 ? span : 1.0);
        styler.setYAxisMin(-0.5);
        styler.setYAxisMax(rows - 0.5);
        styler.setYAxisDecimalPattern("#,##0");
        styler.setPlotGridHorizontalLinesVisible(false);
        float barWidth = (float) Math.max(1, Math.min(14, 0.7 * plotHeight / rows));
        BasicStroke stroke =
                new BasicStroke(barWidth, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER);
        for (int s = 0; s < bars.names.size(); s++) {
            DoubleArrayList x = bars.x.get(s);
            if (x.isEmpty()) {
                continue;
            }
            XYSeries series =
                    chart.addSeries(
                            bars.names.get(s), x.toDoubleArray(), bars.y.get(s).toDoubleArray());
            series.setMarker(SeriesMarkers.NONE);
            series.setLineStyle(stroke);
            series.setLineColor(bars.colours.get(s));
        }
        return chart;
    }

    /**
     * The legend of the series {@code drawn} in some panel, on {@code background}: a swatch and a
     * name each, in rows.
     */
    private static BufferedImage legend(Bars bars, boolean[] drawn, Color background) {
        Font font = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
        BufferedImage scratch = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB);
        Graphics2D measure = scratch.createGraphics();
        FontMetrics metrics = measure.getFontMetrics(font);
        measure.dispose();
        int lineHeight = metrics.getHeight() + 8;
        int[] xs = new int[drawn.length];
        int[] lines = new int[drawn.length];
        int x = LEGEND_MARGIN;
        int line = 0;
        for (int s = 0; s < drawn.length; s++) {
            int entry = SWATCH + 6 + metrics.stringWidth(bars.names.get(s)) + 24;
            if (drawn[s] && x > LEGEND_MARGIN && x + entry > WIDTH - LEGEND_MARGIN) {
                x = LEGEND_MARGIN;
                line++;
            }
            xs[s] = x;
            lines[s] = line;
            x += drawn[s] ? entry : 0;
        }
        BufferedImage image =
                new BufferedImage(WIDTH, (line + 1) * lineHeight + 16, BufferedImage.TYPE_INT_RGB);
        Graphics2D graphics = image.createGraphics();
        try {
            graphics.setRenderingHint(
                    RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            graphics.setColor(background);
            graphics.fillRect(0, 0, image.getWidth(), image.getHeight());
            graphics.setFont(font);
            for (int s = 0; s < drawn.length; s++) {
                if (drawn[s]) {
                    int top = 8 + lines[s] * lineHeight;
                    graphics.setColor(bars.colours.get(s));
                    graphics.fillRect(
                            xs[s], top + (lineHeight - 8 - SWATCH / 2) / 2, SWATCH, SWATCH / 2);
                    graphics.setColor(Color.BLACK);
                    graphics.drawString(
                            bars.names.get(s), xs[s] + SWATCH + 6, top + metrics.getAscent());
                }
            }
        } finally {
            graphics.dispose();
        }
        return image;
    }

    private static String title(SimulateOutput.Run run, int rows) {
        SimulationResult result = run.result();
        return String.format(
                Locale.ROOT,
                "%s: makespan %s%s, %,d slots%s",
                run.mode().key(),
                SimulateOutput.time(result.makespan()),
                result.isFinished() ? "" : " (FAILED)",
                result.slots(),
                rows < result.slots()
                        ? String.format(Locale.ROOT, " (the first %,d drawn)", rows)
                        : "");
    }

    /**
     * The bars of one run as series: the waiting series, one per vertex (the last shared by the
     * vertices past {@value #MAX_VERTEX_SERIES}), the failed series; each a polyline of bars {@code
     * (start, slot) (end, slot) (end, NaN)}.
     */
    private static final class Bars {
        final List<String> names = new ArrayList<>();
        final List<Color> colours = new ArrayList<>();
        final List<DoubleArrayList> x = new ArrayList<>();
        final List<DoubleArrayList> y = new ArrayList<>();

        private void series(String name, Color colour) {
            names.add(name);
            colours.add(colour);
            x.add(new DoubleArrayList());
            y.add(new DoubleArrayList());
        }

        private void bar(int series, double from, double to, int slot) {
            x.get(series).add(from);
            y.get(series).add(slot);
            x.get(series).add(to);
            y.get(series).add(slot);
            x.get(series).add(to);
            y.get(series).add(Double.NaN);
        }

        static Bars of(SimulationResult result, int rows) {
            JobGraph graph = result.graph();
            Bars bars = new Bars();
            bars.series(WAITING, GREY);
            int own = Math.min(graph.numJobVertices(), MAX_VERTEX_SERIES);
            for (int v = 0; v < own; v++) {
                String name = graph.vertexName(v);
                bars.series(
                        name.equals(WAITING) || name.equals(FAILED) ? name + " (vertex)" : name,
                        PALETTE[v % PALETTE.length]);
            }
            if (graph.numJobVertices() > own) {
                bars.series(
                        String.format(
                                Locale.ROOT, "%,d other vertices", graph.numJobVertices() - own),
                        PALETTE[PALETTE.length - 1]);
            }
            int failed = bars.names.size();
            bars.series(FAILED, RED);
            SimulationResult.Trace trace = result.trace();
            for (int i = 0; i < trace.size(); i++) {
                int slot = trace.slot(i);
                if (slot >= rows) {
                    continue;
                }
                double start = trace.start(i);
                double end = trace.end(i);
                if (!trace.finished(i)) {
                    bars.bar(failed, start, end, slot);
                    continue;
                }
                double waited = Math.min(end - start, end - start - trace.busy(i));
                if (waited > NOISE * (end - start)) {
                    bars.bar(0, start, start + waited, slot);
                } else {
                    waited = 0;
                }
                int v = graph.vertexOfTask(trace.task(i));
                bars.bar(1 + Math.min(v, own), start + waited, end, slot);
            }
            return bars;
        }
    }

    /**
     * Writes the makespan of each mode against the parallelism of a sweep to {@code out} as a PNG;
     * failed runs are left out.
     */
    static void sweep(List<SimulateOutput.SweepPoint> sweep, OutputStream out) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<SimulateOutput.SweepPoint> points = new ArrayList<>(sweep);
        points.sort(Comparator.comparingInt(SimulateOutput.SweepPoint::parallelism));
        XYChart chart =
                new XYChartBuilder()
                        .width(1000)
                        .height(600)
                        .title("makespan vs parallelism (every vertex's total work as in the file)")
                        .xAxisTitle("parallelism of every job vertex")
                        .yAxisTitle("makespan (work units)")
                        .build();
        int lowest = Integer.MAX_VALUE;
        int highest = 0;
        for (SimulateOutput.SweepPoint point : points) {
            lowest = Math.min(lowest, point.parallelism());
            highest = Math.max(highest, point.parallelism());
        }
        chart.getStyler().setXAxisLogarithmic(highest >= 100L * lowest);
        chart.getStyler().setYAxisMin(0.0);
        int modes = points.get(0).runs().size();
        for (int m = 0; m < modes; m++) {
            DoubleArrayList x = new DoubleArrayList();
            DoubleArrayList y = new DoubleArrayList();
            for (SimulateOutput.SweepPoint point : points) {
                SimulationResult result = point.runs().get(m).result();
                if (result.isFinished()) {
                    x.add(point.parallelism());
                    y.add(result.makespan());
                }
            }
            if (!x.isEmpty()) {
                chart.addSeries(
                        points.get(0).runs().get(m).mode().key(),
                        x.toDoubleArray(),
                        y.toDoubleArray());
            }
        }
        BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
    }
}
