package io.railyard.deployment;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The worker side: resolves the input descriptors of arriving tasks to {@link GroupDescriptors},
 * fetching and decoding each offloaded group once per worker however many of its tasks read it.
 * Inline groups are decoded per task (they are small by construction). Thread-safe: tasks are
 * deployed from many threads.
 */
public final class WorkerDescriptorCache {
    private final BlobStore blobs;
    private final ConcurrentHashMap<BlobKey, GroupDescriptors> decoded = new ConcurrentHashMap<>();
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
        if (input instanceof InputDescriptor.Inline inline) {
            group = GroupDescriptors.decode(inline.encodedGroup());
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
}
