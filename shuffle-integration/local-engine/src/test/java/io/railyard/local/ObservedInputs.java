package io.railyard.local;

import io.railyard.shuffle.format.RecordDecoder;
import io.railyard.worker.TaskContext;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A task's context whose inputs pass every record to {@code tap} before the task sees it (to count
 * it, or to slow the consumer down); everything else is {@code context}'s.
 */
record ObservedInputs(TaskContext context, RecordDecoder.RecordSink tap) implements TaskContext {
    @Override
    public int vertex() {
        return context.vertex();
    }

    @Override
    public int subtask() {
        return context.subtask();
    }

    @Override
    public int attempt() {
        return context.attempt();
    }

    @Override
    public int numOutputs() {
        return context.numOutputs();
    }

    @Override
    public void emit(int output, ByteBuffer record, int key) throws IOException {
        context.emit(output, record, key);
    }

    @Override
    public boolean canContinue() {
        return context.canContinue();
    }

    @Override
    public boolean readInputs(RecordDecoder.RecordSink sink) throws IOException {
        return context.readInputs(
                (channel, record) -> {
                    tap.accept(channel, record);
                    sink.accept(channel, record);
                });
    }
}
