package io.railyard.worker;

import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.partition.InputGate;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One {@link InputGate} over parts, each a gate over some of its channels: how a worker reads the
 * partitions it holds directly, through its own IO thread, and the others' over the network, while
 * its task sees one gate. Channel {@code j} of part {@code p} is channel {@code channels[p][j]} of
 * the composite.
 *
 * <p>Polls the parts round-robin, a part per call, so no part's data waits behind another's. Not
 * thread-safe beyond what {@link InputGate} promises: the consumer polls; buffers are recycled from
 * any thread (by the part that made them). {@link #poll()} allocates the buffer's wrapper; {@link
 * #availability()} a future combining the parts' when none is complete.
 */
public final class CompositeInputGate implements InputGate {
    private final String name;
    private final InputGate[] parts;
    private final int[][] channels;
    private final int numChannels;
    private int next; // the consumer's

    /**
     * A gate named {@code name} over {@code parts}, where {@code channels[p][j]} is the composite
     * channel of part {@code p}'s channel {@code j}, for {@code numChannels} channels in all.
     */
    public CompositeInputGate(String name, InputGate[] parts, int[][] channels, int numChannels) {
        this.name = name;
        this.parts = parts.clone();
        this.channels = channels.clone();
        this.numChannels = numChannels;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int numChannels() {
        return numChannels;
    }

    @Override
    public @Nullable Buffer poll() throws PartitionLostException {
        for (int k = 0; k < parts.length; k++) {
            int p = next;
            next = (next + 1) % parts.length;
            Buffer buffer = parts[p].poll();
            if (buffer != null) {
                return new Mapped(buffer, channels[p][buffer.channel()]);
            }
        }
        return null;
    }

    @Override
    public CompletableFuture<Void> availability() {
        CompletableFuture<?>[] futures = new CompletableFuture<?>[parts.length];
        for (int p = 0; p < parts.length; p++) {
            CompletableFuture<Void> part = parts[p].availability();
            if (part.isDone()) {
                return part;
            }
            futures[p] = part;
        }
        return CompletableFuture.anyOf(futures).thenRun(() -> {});
    }

    @Override
    public boolean isFinished() {
        for (InputGate part : parts) {
            if (!part.isFinished()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int pagesInUse() {
        int pages = 0;
        for (InputGate part : parts) {
            pages += part.pagesInUse();
        }
        return pages;
    }

    @Override
    public long bytesReady() {
        long bytes = 0;
        for (InputGate part : parts) {
            bytes += part.bytesReady();
        }
        return bytes;
    }

    /** Closes every part (each after the one before, even if one throws). */
    @Override
    public void close() {
        RuntimeException failure = null;
        for (InputGate part : parts) {
            try {
                part.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** A part's buffer seen under its composite channel. */
    private static final class Mapped implements Buffer {
        private final Buffer buffer;
        private final int channel;

        Mapped(Buffer buffer, int channel) {
            this.buffer = buffer;
            this.channel = channel;
        }

        @Override
        public int channel() {
            return channel;
        }

        @Override
        public ByteBuffer data() {
            return buffer.data();
        }

        @Override
        public void recycle() {
            buffer.recycle();
        }
    }
}
