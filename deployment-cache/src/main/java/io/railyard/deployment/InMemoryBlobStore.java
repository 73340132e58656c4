package io.railyard.deployment;

import com.google.common.hash.Hashing;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * A {@link BlobStore} in the heap: for a JobManager and workers in one process, for tests and for
 * benchmarks that should not measure a disk. Same keys and reference rules as the file-system
 * store; content is copied in and out. Thread-safe (one lock); every operation O(jobs + content).
 */
public final class InMemoryBlobStore implements BlobStore {
    private final Map<BlobKey, byte[]> blobs = new HashMap<>();
    private final Map<JobId, Map<BlobKey, Integer>> references = new HashMap<>();
    private long gets;
    private long puts;

    /** An empty store. */
    public InMemoryBlobStore() {}

    @Override
    public synchronized BlobKey put(JobId job, byte[] content) {
        puts++;
        BlobKey key = new BlobKey(Hashing.sha256().hashBytes(content).toString());
        blobs.putIfAbsent(key, content.clone());
        references.computeIfAbsent(job, j -> new HashMap<>()).merge(key, 1, Integer::sum);
        BlobReferences.add(1);
        return key;
    }

    @Override
    public synchronized byte[] get(BlobKey key) throws IOException {
        gets++;
        byte[] content = blobs.get(key);
        if (content == null) {
            throw new BlobNotFoundException(key, "memory");
        }
        return content.clone();
    }

    @Override
    public synchronized void release(JobId job, BlobKey key) {
        Map<BlobKey, Integer> held = references.getOrDefault(job, new HashMap<>());
        Integer count = held.get(key);
        if (count == null) {
            throw new IllegalStateException("job " + job + " holds no reference to " + key);
        }
        if (count == 1) {
            held.remove(key);
        } else {
            held.put(key, count - 1);
        }
        BlobReferences.add(-1);
        deleteIfUnreferenced(key);
    }

    @Override
    public synchronized void releaseJob(JobId job) {
        Map<BlobKey, Integer> held = references.remove(job);
        if (held != null) {
            BlobReferences.add(-held.values().stream().mapToLong(Integer::longValue).sum());
            held.keySet().forEach(this::deleteIfUnreferenced);
        }
    }

    @Override
    public synchronized int referenceCount(BlobKey key) {
        int count = 0;
        for (Map<BlobKey, Integer> held : references.values()) {
            count += held.getOrDefault(key, 0);
        }
        return count;
    }

    /** How many blobs are stored. */
    public synchronized int numBlobs() {
        return blobs.size();
    }

    /** How many {@link #put} calls were made. */
    public synchronized long puts() {
        return puts;
    }

    /** How many {@link #get} calls were made. */
    public synchronized long gets() {
        return gets;
    }

    private void deleteIfUnreferenced(BlobKey key) {
        if (referenceCount(key) == 0) {
            blobs.remove(key);
        }
    }
}
