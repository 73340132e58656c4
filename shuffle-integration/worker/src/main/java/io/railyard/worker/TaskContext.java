package io.railyard.worker;

import io.railyard.shuffle.format.RecordDecoder;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * What a running task sees: who it is, its inputs as a stream of records and its outputs. Given to
 * {@link TaskCode#run} on the task's thread; not thread-safe.
 */
public interface TaskContext {
    /** The task's job vertex. */
    int vertex();

    /** The task's subtask index. */
    int subtask();

    /** The task's attempt (0 first, one more per restart of its region). */
    int attempt();

    /** Number of datasets it produces (output {@code k} is its k-th produced dataset). */
    int numOutputs();

    /**
     * Sends {@code record[position, limit)} to output {@code output}: to the consumer that reads
     * subpartition {@code floorMod(key, subpartitions)} of it. Consumes the buffer.
     *
     * @throws IOException if the partition cannot take it (lost, disk full)
     * @throws java.util.concurrent.CancellationException if the task was cancelled
     */
    void emit(int output, ByteBuffer record, int key) throws IOException;

    /**
     * Hands every record of every input to {@code sink}, in order per producer, until every input
     * ended. Returns at once for a task without inputs.
     *
     * @throws IOException if an input is lost ({@code PartitionLostException} names it)
     * @throws InterruptedException if the thread is interrupted while waiting for data
     * @throws java.util.concurrent.CancellationException if the task was cancelled
     */
    void readInputs(RecordDecoder.RecordSink sink) throws IOException, InterruptedException;
}
