package io.railyard.flink;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.flink.runtime.event.AbstractEvent;
import org.apache.flink.runtime.io.network.api.serialization.EventSerializer;

/**
 * How Flink's bytes ride in Railyard's records. A Flink data record arrives serialized with its
 * 4-byte length first, which is never negative; a Railyard data record is one or more whole Flink
 * records, back to back (a writer's chunk), so it starts with a length too. An event (end of data,
 * end of partition, …) is one Railyard record of {@link #EVENT_MARK} followed by Flink's
 * serialization of it. So a subpartition's Railyard records are Flink's records and events in the
 * order the task wrote them, and a reader copies a data record's bytes into Flink buffers as they
 * are.
 *
 * <p>Stateless; thread-safe.
 */
final class FlinkRecords {
    /** The first int of an event record: a length no data record has. */
    static final int EVENT_MARK = -1;

    private FlinkRecords() {}

    /** The Railyard record of {@code event}. O(event size); allocates it. */
    static ByteBuffer event(AbstractEvent event) throws IOException {
        ByteBuffer serialized = EventSerializer.toSerializedEvent(event);
        ByteBuffer record = ByteBuffer.allocate(Integer.BYTES + serialized.remaining());
        record.putInt(EVENT_MARK).put(serialized).flip();
        return record;
    }

    /** Whether {@code record[position, limit)} is an event record. O(1). */
    static boolean isEvent(ByteBuffer record) {
        return record.remaining() >= Integer.BYTES
                && record.getInt(record.position()) == EVENT_MARK;
    }

    /**
     * The event in the event record {@code record[position, limit)}; consumes the buffer.
     *
     * @throws IOException if the bytes are not an event Flink knows
     */
    static AbstractEvent readEvent(ByteBuffer record, ClassLoader classLoader) throws IOException {
        ByteBuffer body = record.duplicate().order(ByteOrder.BIG_ENDIAN);
        body.position(body.position() + Integer.BYTES);
        record.position(record.limit());
        return EventSerializer.fromSerializedEvent(body, classLoader);
    }
}
