package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkElementIndex;

import com.google.common.collect.ImmutableList;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The per-job table of worker locations ({@code host:port}) that shuffle descriptors refer to by
 * index, so a location string is written once per job instead of once per partition. Immutable.
 */
public final class WorkerTable {
    static final int MAGIC = 0x5257; // "RW"
    static final int VERSION = 1;

    /** The most workers a table may list. */
    public static final int MAX_WORKERS = 1 << 20;

    /** The longest location, in UTF-8 bytes. */
    public static final int MAX_LOCATION_BYTES = 1024;

    private final ImmutableList<String> locations;

    /**
     * A table of {@code locations}, index = worker id.
     *
     * @throws IllegalArgumentException if there are more than {@link #MAX_WORKERS}, or a location
     *     is empty or longer than {@link #MAX_LOCATION_BYTES} bytes
     */
    public WorkerTable(List<String> locations) {
        checkArgument(
                locations.size() <= MAX_WORKERS,
                "a worker table holds at most %s workers, was %s",
                MAX_WORKERS,
                locations.size());
        for (int i = 0; i < locations.size(); i++) {
            int bytes = locations.get(i).getBytes(StandardCharsets.UTF_8).length;
            checkArgument(
                    bytes > 0 && bytes <= MAX_LOCATION_BYTES,
                    "location of worker %s must be 1 to %s UTF-8 bytes, was %s",
                    i,
                    MAX_LOCATION_BYTES,
                    bytes);
        }
        this.locations = ImmutableList.copyOf(locations);
    }

    /** The number of workers. */
    public int size() {
        return locations.size();
    }

    /** The location of worker {@code worker}. */
    public String location(int worker) {
        checkElementIndex(worker, locations.size(), "worker");
        return locations.get(worker);
    }

    /** The table in the project's binary format (framed, checksummed, compressed if it pays). */
    public byte[] encode() {
        ByteWriter out = new ByteWriter(16 * locations.size() + 16);
        out.writeVarint(locations.size());
        for (String location : locations) {
            byte[] utf8 = location.getBytes(StandardCharsets.UTF_8);
            out.writeVarint(utf8.length);
            out.writeBytes(utf8, 0, utf8.length);
        }
        return Envelope.seal(MAGIC, VERSION, out.buffer(), out.size(), true);
    }

    /**
     * Reads a table written by {@link #encode()}.
     *
     * @throws CorruptDescriptorException if {@code bytes} is not such a table
     */
    public static WorkerTable decode(byte[] bytes) {
        int maxPayload = 5 + MAX_WORKERS * (5 + MAX_LOCATION_BYTES);
        ByteReader in =
                Envelope.open(bytes, MAGIC, VERSION, "worker table", Math.max(0, maxPayload));
        int n = in.readVarint("worker count", Math.min(MAX_WORKERS, in.remaining() / 2));
        ImmutableList.Builder<String> locations = ImmutableList.builderWithExpectedSize(n);
        for (int i = 0; i < n; i++) {
            int length = in.readVarint("location length", MAX_LOCATION_BYTES);
            if (length == 0) {
                throw in.corrupt(in.position(), "location", "empty");
            }
            int at = in.position();
            locations.add(location(in.readBytes(length, "location"), i, at, in));
        }
        in.expectEnd("worker table");
        return new WorkerTable(locations.build());
    }

    /**
     * The location of worker {@code worker}, read strictly: bytes that are not UTF-8 would become
     * replacement characters, a different and possibly longer location than the one encoded.
     */
    private static String location(byte[] utf8, int worker, int offset, ByteReader in) {
        ByteBuffer bytes = ByteBuffer.wrap(utf8);
        CharBuffer chars = CharBuffer.allocate(utf8.length);
        CoderResult result =
                StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(bytes, chars, true);
        if (result.isError()) {
            throw in.corrupt(
                    offset + bytes.position(),
                    "location",
                    "the location of worker "
                            + worker
                            + " is not UTF-8 (byte 0x"
                            + Integer.toHexString(utf8[bytes.position()] & 0xFF)
                            + " at its byte "
                            + bytes.position()
                            + ")");
        }
        return chars.flip().toString();
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof WorkerTable table && table.locations.equals(locations);
    }

    @Override
    public int hashCode() {
        return locations.hashCode();
    }

    @Override
    public String toString() {
        return "WorkerTable{" + locations.size() + " workers}";
    }
}
