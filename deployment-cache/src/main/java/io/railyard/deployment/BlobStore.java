package io.railyard.deployment;

import java.io.IOException;

/**
 * A content-addressed store for large encoded descriptor parts, shared by the JobManager (which
 * puts) and the workers (which get). A blob's key is the SHA-256 of its content, so putting the
 * same bytes twice stores them once.
 *
 * <h2>References</h2>
 *
 * Each {@link #put} adds one reference of its job to the blob; {@link #release} drops one; {@link
 * #releaseJob} drops every reference of a job (the job ended). A blob without references is
 * deleted. {@link #get} needs no reference.
 *
 * <p>Implementations are thread-safe.
 */
public interface BlobStore {
    /**
     * Stores {@code content} (if not stored already) and adds a reference of {@code job} to it.
     *
     * @return the content's key
     * @throws IOException if the content cannot be written (the message names the path and the
     *     bytes; a full disk says so); nothing partial is left behind
     */
    BlobKey put(JobId job, byte[] content) throws IOException;

    /**
     * The content of blob {@code key}, verified against its key.
     *
     * @throws BlobNotFoundException if there is no such blob
     * @throws IOException if it cannot be read, or its content does not match its key (the corrupt
     *     blob is then deleted)
     */
    byte[] get(BlobKey key) throws IOException;

    /**
     * Drops one reference of {@code job} to blob {@code key}; the blob is deleted when no reference
     * is left.
     *
     * @throws IllegalStateException if {@code job} holds no reference to {@code key}
     * @throws IOException if a deletion fails
     */
    void release(JobId job, BlobKey key) throws IOException;

    /**
     * Drops every reference of {@code job}, deleting the blobs left without references.
     *
     * @throws IOException if a deletion fails
     */
    void releaseJob(JobId job) throws IOException;

    /** How many references all jobs hold to blob {@code key} (0 if no job holds one). */
    int referenceCount(BlobKey key);

    /**
     * The references every store of this process holds now, over all jobs: 0 once every job
     * released its blobs (a closed {@link FileSystemBlobStore}'s references went with it). For leak
     * checks, as {@code NetworkBufferPool.pagesInUseInProcess()} is for pages. O(1).
     */
    static long referencesInProcess() {
        return BlobReferences.live();
    }
}
