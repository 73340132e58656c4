package io.railyard.topology;

/**
 * The job vertex of task after task, for callers that meet tasks in runs of one vertex (a
 * deployment walking its task ranges, finish events of one stage): it remembers the last vertex's
 * task range, so a task inside it costs a range check, and only a task outside it a {@link
 * JobGraph#vertexOfTask} lookup (O(1) for up to 512 job vertices of comparable parallelism, O(log
 * V) at worst). Allocates nothing after construction. Not thread-safe: one per caller's thread.
 */
public final class VertexRuns {
    private final JobGraph graph;
    private int vertex;
    private int first;
    private int end;

    /** Lookups in {@code graph}; nothing remembered yet. */
    public VertexRuns(JobGraph graph) {
        this.graph = graph;
    }

    /** The job vertex of task {@code task}, as {@link JobGraph#vertexOfTask} gives it. */
    public int vertexOf(int task) {
        if (task < first || task >= end) {
            vertex = graph.vertexOfTask(task);
            first = graph.firstTask(vertex);
            end = first + graph.parallelism(vertex);
        }
        return vertex;
    }

    /** The first task of the vertex {@link #vertexOf} returned last (0 before any lookup). */
    public int firstTask() {
        return first;
    }
}
