package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkArgument;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A job's shared secret: what proves to a worker's data server that a reader belongs to a job it
 * serves. The JobManager draws it ({@link DeploymentDescriptors} does, once per job) and it travels
 * to the workers only inside the job's {@link TaskDeploymentDescriptor}s; it never travels on a
 * data connection: a reader sends a proof instead, an HMAC-SHA256 of the secret over the server's
 * nonce for that connection, the job and the stream ({@link #proof}), so a proof seen on the wire
 * opens nothing else. {@link #toString()} never shows it. Immutable; thread-safe.
 */
public final class JobSecret {
    /** Bytes of a secret. */
    public static final int BYTES = 32;

    /** Bytes of a {@link #proof}. */
    public static final int PROOF_BYTES = 32;

    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] bytes;
    private final SecretKeySpec key;

    private JobSecret(byte[] bytes) {
        this.bytes = bytes;
        this.key = new SecretKeySpec(bytes, "HmacSHA256");
    }

    /** A fresh random secret, from a {@link SecureRandom}. */
    public static JobSecret random() {
        byte[] bytes = new byte[BYTES];
        RANDOM.nextBytes(bytes);
        return new JobSecret(bytes);
    }

    /**
     * The secret of {@code bytes} (as a deployment descriptor carries it), copied.
     *
     * @throws IllegalArgumentException if it is not {@value #BYTES} bytes
     */
    public static JobSecret of(byte[] bytes) {
        checkArgument(
                bytes.length == BYTES,
                "a job secret must be %s bytes, was %s",
                BYTES,
                bytes.length);
        return new JobSecret(bytes.clone());
    }

    /** The secret's bytes, a copy. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** Writes the secret's bytes to {@code out}, without a copy of its own. O(BYTES). */
    void writeTo(ByteWriter out) {
        out.writeBytes(bytes, 0, bytes.length);
    }

    /**
     * The proof, {@value #PROOF_BYTES} bytes, for stream {@code stream} of job {@code job} on a
     * connection whose server sent {@code nonce}. O(nonce).
     */
    public byte[] proof(byte[] nonce, JobId job, int stream) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            mac.update(nonce);
            mac.update(
                    ByteBuffer.allocate(20)
                            .putLong(job.high())
                            .putLong(job.low())
                            .putInt(stream)
                            .flip());
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }

    /** Whether {@code proof} proves this secret for that nonce, job and stream; constant time. */
    public boolean verifies(byte[] proof, byte[] nonce, JobId job, int stream) {
        return MessageDigest.isEqual(proof, proof(nonce, job, stream));
    }

    /** Equal secrets have equal bytes (compared in constant time). */
    @Override
    public boolean equals(Object other) {
        return other instanceof JobSecret that && MessageDigest.isEqual(bytes, that.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "JobSecret[hidden]";
    }
}
