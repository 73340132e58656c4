package io.railyard.deployment;

import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * The key of a blob: the SHA-256 of its content as 64 lower-case hex digits. Keys are validated on
 * construction, so a key can never carry a path ({@code ../}), an upper-case or non-hex character,
 * a NUL or a wrong length into a file-system call. Immutable; equal when the digits are equal.
 *
 * <p>A class rather than a record: it keeps its raw bytes, decoded once, because every descriptor
 * that reads an offloaded group writes them (a million sink descriptors at P = 1,000,000).
 */
public final class BlobKey {
    /** Length of a key in characters. */
    public static final int LENGTH = 64;

    private final String hex;
    private final byte[] raw; // the digits decoded, LENGTH / 2 bytes; never handed out

    /**
     * The key {@code hex}: 64 lower-case hex digits.
     *
     * @throws IllegalArgumentException if {@code hex} is not exactly 64 characters of [0-9a-f]
     */
    public BlobKey(String hex) {
        // The message is built only on failure: printable() would cost a copy on every key.
        if (hex.length() != LENGTH || !hex.chars().allMatch(BlobKey::isLowerHex)) {
            throw new IllegalArgumentException(
                    "a blob key is "
                            + LENGTH
                            + " lower-case hex digits (a SHA-256), was '"
                            + printable(hex)
                            + "'");
        }
        this.hex = hex;
        this.raw = new byte[LENGTH / 2];
        for (int i = 0; i < LENGTH; i += 2) {
            raw[i / 2] = (byte) (hexValue(hex.charAt(i)) << 4 | hexValue(hex.charAt(i + 1)));
        }
    }

    private BlobKey(byte[] raw) {
        this.raw = raw;
        this.hex = HexFormat.of().formatHex(raw);
    }

    /**
     * The key whose raw bytes are {@code raw} ({@code LENGTH / 2} of them, kept: the caller hands
     * the array over), as a descriptor carries it: any 32 bytes are a valid key, so nothing is
     * checked, and nothing decoded from hex again.
     */
    static BlobKey fromRawBytes(byte[] raw) {
        if (raw.length != LENGTH / 2) {
            throw new IllegalArgumentException(
                    "a raw blob key is " + LENGTH / 2 + " bytes, was " + raw.length);
        }
        return new BlobKey(raw);
    }

    /** The key's 64 lower-case hex digits. */
    public String hex() {
        return hex;
    }

    /**
     * Writes the key's {@code LENGTH / 2} raw bytes (its hex digits decoded) to {@code out}. O(1),
     * no allocation beyond the buffer's growth.
     */
    void writeRawBytes(ByteWriter out) {
        out.writeBytes(raw, 0, raw.length);
    }

    /** The value of a lower-case hex digit, which the constructor checked it is. */
    private static int hexValue(char c) {
        return c <= '9' ? c - '0' : c - 'a' + 10;
    }

    private static boolean isLowerHex(int c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    }

    /** The input shown in an error: control characters escaped, long input shortened (said so). */
    private static String printable(String text) {
        StringBuilder out = new StringBuilder();
        int shown = Math.min(text.length(), 80);
        for (int i = 0; i < shown; i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        if (shown < text.length()) {
            out.append("… (").append(text.length()).append(" characters)");
        }
        return out.toString();
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof BlobKey that && that.hex.equals(hex);
    }

    @Override
    public int hashCode() {
        return hex.hashCode();
    }

    @Override
    public String toString() {
        return hex;
    }
}
