package io.railyard.deployment;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The worker side: resolves the input descriptors of arriving tasks to {@link GroupDescriptors},
 * fetching and decoding each offloaded group once per worker however many of its tasks read it, and
 * decoding an inline group once per worker per distinct encoding (the consumers of one group carry
 * the same bytes): every consumer of a group on the worker gets the same object, which is what lets
 * them share what they read of it. Thread-safe: tasks are deployed from many threads. Memory: a
 * decoded group per distinct group and its bytes, until the cache is dropped with its job.
 */
public final class WorkerDescriptorCache {
    private final BlobStore blobs;
    private final ConcurrentHashMap<BlobKey, GroupDescriptors> decoded = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Encoded, GroupDescriptors> inline = new ConcurrentHashMap<>();

    private final AtomicLong fetches = new AtomicLong();

    /** A cache over {@code blobs}. */
    public WorkerDescriptorCache(BlobStore blobs) {
        this.blobs = blobs;
    }

    /**
     * The shuffle descriptors of {@code input}.
     *
     * @throws IOException if the blob cannot be fetched (missing, unreadable or corrupt)
     * @throws CorruptDescriptorException if the encoded group is corrupt, or is not the group the
     *     input names
     */
    public GroupDescriptors resolve(InputDescriptor input) throws IOException {
        GroupDescriptors group;
        if (input instanceof InputDescriptor.Inline one) {
            byte[] bytes = one.encodedGroup();
            group = inline.computeIfAbsent(new Encoded(bytes), k -> GroupDescriptors.decode(bytes));
        } else if (input instanceof InputDescriptor.Offloaded offloaded) {
            try {
                group = decoded.computeIfAbsent(offloaded.key(), this::fetch);
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
        } else {
            throw new AssertionError("an input is inline or offloaded, was " + input);
        }
        if (group.group() != input.group()) {
            throw new CorruptDescriptorException(
                    0,
                    "group",
                    "the input names group "
                            + input.group()
                            + ", its data is group "
                            + group.group());
        }
        return group;
    }

    private GroupDescriptors fetch(BlobKey key) {
        try {
            fetches.incrementAndGet();
            return GroupDescriptors.decode(blobs.get(key));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** How many blobs were fetched and decoded. */
    public long fetches() {
        return fetches.get();
    }

    /** Forgets a group (its job ended, or it was invalidated). */
    public void evict(BlobKey key) {
        decoded.remove(key);
    }

    /** An inline group's bytes, compared by content. */
    private static final class Encoded {
        private final byte[] bytes;
        private final int hash;

        Encoded(byte[] bytes) {
            this.bytes = bytes;
            this.hash = Arrays.hashCode(bytes);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Encoded that
                    && hash == that.hash
                    && Arrays.equals(bytes, that.bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
