package io.railyard.worker;

import io.railyard.shuffle.format.RecordDecoder;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * What a running task sees: who it is, its inputs as a stream of records and its outputs. Given to
 * {@link TaskCode#run} on the thread that runs the task's current step; not thread-safe.
 *
 * <p>Cooperation: a task goes on while {@link #canContinue()} says it may, and returns {@link
 * TaskCode.Step#YIELD} when it does not, or when {@link #readInputs} stops early; the worker calls
 * it again once its outputs have room, data has arrived, or at once if it only used up its turn.
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
     * subpartition {@code floorMod(key, subpartitions)} of it. Consumes the buffer. Never waits: an
     * output beyond its bound still takes the record (see {@link #canContinue()}).
     *
     * @throws IOException if the partition cannot take it (lost, disk full)
     * @throws java.util.concurrent.CancellationException if the task was cancelled
     */
    void emit(int output, ByteBuffer record, int key) throws IOException;

    /**
     * Whether the task may go on now: its outputs have room (a pipelined one has not reached its
     * bound of unconsumed data) and its turn on the thread is not used up. When it says no, the
     * task should return {@link TaskCode.Step#YIELD} before its next record. O(outputs); the clock
     * is read once every few calls.
     *
     * @throws java.util.concurrent.CancellationException if the task was cancelled
     */
    boolean canContinue();

    /**
     * Hands the records of every input that are there now to {@code sink}, in order per producer,
     * while {@link #canContinue()} allows (it is asked after each buffer of records). Never waits.
     *
     * @return true once every input ended (and every record was handed over), at once for a task
     *     without inputs; false if it stopped before that — no input had data, or the task may not
     *     go on — and the task should return {@link TaskCode.Step#YIELD} (it is called again when
     *     data arrives or it may go on)
     * @throws IOException if an input is lost ({@code PartitionLostException} names it)
     * @throws java.util.concurrent.CancellationException if the task was cancelled
     */
    boolean readInputs(RecordDecoder.RecordSink sink) throws IOException;
}
