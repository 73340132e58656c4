package io.railyard.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.zip.Deflater;
import org.junit.jupiter.api.Test;

/**
 * A deflated descriptor's header claims its inflated length: a forged claim — as large as the input
 * could plausibly inflate to, a quarter of a gigabyte for a 256 KiB group blob — must cost what
 * really inflates, not the claim, before the decoder finds the lie.
 */
class EnvelopeInflationTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void aForgedInflatedLength_costsWhatInflates_notWhatItClaims() {
        byte[] deflated = new byte[64];
        Deflater deflater = Envelope.newDeflater();
        int length;
        try {
            deflater.setInput("hello".getBytes(StandardCharsets.US_ASCII));
            deflater.finish();
            length = deflater.deflate(deflated);
        } finally {
            deflater.end();
        }
        byte[] body = new byte[256 * 1024]; // the deflate stream, then padding
        System.arraycopy(deflated, 0, body, 0, length);
        int claimed = 200 << 20;
        byte[] bytes =
                Envelope.frame(
                        GroupDescriptors.MAGIC,
                        GroupDescriptors.VERSION,
                        Envelope.CODEC_DEFLATE,
                        claimed,
                        body,
                        body.length);

        long before = THREADS.getCurrentThreadAllocatedBytes();
        assertThatThrownBy(() -> GroupDescriptors.decode(bytes))
                .isInstanceOf(CorruptDescriptorException.class)
                .hasMessageContaining("inflates to 5 bytes, declared " + claimed);
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;

        assertThat(allocated)
                .as("bytes allocated refusing a claim of %s inflated bytes", claimed)
                .isLessThan(8L << 20);
    }
}
