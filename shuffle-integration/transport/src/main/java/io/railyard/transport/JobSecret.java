package io.railyard.transport;

import static com.google.common.base.Preconditions.checkArgument;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A job's shared secret: what proves to a data server that a reader belongs to a job it serves. It
 * never travels on the data connection; a reader sends a proof instead, an HMAC-SHA256 of the
 * secret over the server's nonce for that connection, the job and the stream ({@link #proof}), so a
 * proof seen on the wire opens nothing else. Immutable; thread-safe.
 */
public final class JobSecret {
    /** Bytes of a secret. */
    public static final int BYTES = 32;

    private static final SecureRandom RANDOM = new SecureRandom();

    private final SecretKeySpec key;

    private JobSecret(byte[] bytes) {
        this.key = new SecretKeySpec(bytes, "HmacSHA256");
    }

    /** A fresh random secret. */
    public static JobSecret random() {
        byte[] bytes = new byte[BYTES];
        RANDOM.nextBytes(bytes);
        return new JobSecret(bytes);
    }

    /**
     * The secret of {@code bytes} (as a deployment descriptor carries it).
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
        return key.getEncoded();
    }

    /** The proof for stream {@code stream} of job {@code job} on a connection of {@code nonce}. */
    byte[] proof(byte[] nonce, long job, int stream) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            mac.update(nonce);
            mac.update(ByteBuffer.allocate(12).putLong(job).putInt(stream).flip());
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }

    /** Whether {@code proof} proves this secret for that nonce, job and stream; constant time. */
    boolean verifies(byte[] proof, byte[] nonce, long job, int stream) {
        return MessageDigest.isEqual(proof, proof(nonce, job, stream));
    }

    @Override
    public String toString() {
        return "JobSecret[hidden]";
    }
}
