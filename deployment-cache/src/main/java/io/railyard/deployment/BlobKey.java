package io.railyard.deployment;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The key of a blob: the SHA-256 of its content as 64 lower-case hex digits. Keys are validated on
 * construction, so a key can never carry a path ({@code ../}), an upper-case or non-hex character,
 * a NUL or a wrong length into a file-system call. Immutable.
 *
 * @param hex 64 lower-case hex digits
 */
public record BlobKey(String hex) {
    /** Length of a key in characters. */
    public static final int LENGTH = 64;

    /**
     * Checks the key.
     *
     * @throws IllegalArgumentException if {@code hex} is not exactly 64 characters of [0-9a-f]
     */
    public BlobKey {
        checkArgument(
                hex.length() == LENGTH && hex.chars().allMatch(BlobKey::isLowerHex),
                "a blob key is %s lower-case hex digits (a SHA-256), was '%s'",
                LENGTH,
                printable(hex));
    }

    /**
     * Writes the key's {@code LENGTH / 2} raw bytes (its hex digits decoded) to {@code out}. O(1),
     * no allocation beyond the buffer's growth.
     */
    void writeRawBytes(ByteWriter out) {
        out.ensureCapacity(LENGTH / 2);
        for (int i = 0; i < LENGTH; i += 2) {
            out.writeByte(hexValue(hex.charAt(i)) << 4 | hexValue(hex.charAt(i + 1)));
        }
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
    public String toString() {
        return hex;
    }
}
