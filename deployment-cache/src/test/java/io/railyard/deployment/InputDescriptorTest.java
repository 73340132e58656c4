package io.railyard.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.collect.ImmutableList;
import com.google.common.io.BaseEncoding;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class InputDescriptorTest {
    private static final BlobKey KEY = new BlobKey("0123456789abcdef".repeat(4));

    @Test
    void inline_equalByContent_notByArray() {
        InputDescriptor a = InputDescriptor.inline(3, 1, 2, new byte[] {5, 6, 7});
        InputDescriptor b = InputDescriptor.inline(3, 1, 2, new byte[] {5, 6, 7});

        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a).isNotEqualTo(InputDescriptor.inline(3, 1, 2, new byte[] {5, 6, 8}));
        assertThat(a).isNotEqualTo(InputDescriptor.inline(3, 0, 2, new byte[] {5, 6, 7}));
        assertThat(a).isNotEqualTo(InputDescriptor.inline(3, 1, 1, new byte[] {5, 6, 7}));
        assertThat(a).isNotEqualTo(InputDescriptor.inline(4, 1, 2, new byte[] {5, 6, 7}));
    }

    @Test
    void offloaded_equalByKey_neverEqualToInline() {
        InputDescriptor a = InputDescriptor.offloaded(3, 1, 2, KEY);

        assertThat(a)
                .isEqualTo(InputDescriptor.offloaded(3, 1, 2, new BlobKey(KEY.hex())))
                .hasSameHashCodeAs(InputDescriptor.offloaded(3, 1, 2, new BlobKey(KEY.hex())));
        assertThat(a).isNotEqualTo(InputDescriptor.offloaded(3, 1, 2, new BlobKey("f".repeat(64))));
        assertThat(a).isNotEqualTo(InputDescriptor.inline(3, 1, 2, new byte[0]));
    }

    @Test
    void toString_namesTheGroupTheSubpartitionsAndTheShape() {
        assertThat(InputDescriptor.inline(3, 1, 2, new byte[7]))
                .hasToString("InputDescriptor{group=3, subpartitions [1, 3), inline 7 bytes}");
        assertThat(InputDescriptor.offloaded(3, 0, 1, KEY))
                .hasToString("InputDescriptor{group=3, subpartitions [0, 1), blob " + KEY + "}");
    }

    /** Format version 3, written out by hand: the job id, the secret, then as version 2. */
    @Test
    void encode_writesVersionThree_secretThenInlineLengthAndBytes_orTheKeysRawBytes() {
        byte[] secret = new byte[JobSecret.BYTES];
        for (int i = 0; i < secret.length; i++) {
            secret[i] = (byte) (100 + i);
        }
        TaskDeploymentDescriptor descriptor =
                new TaskDeploymentDescriptor(
                        new JobId(1, 2),
                        JobSecret.of(secret),
                        3,
                        1,
                        0,
                        4,
                        ImmutableList.of(),
                        ImmutableList.of(
                                InputDescriptor.inline(0, 2, 1, new byte[] {5, 6, 7}),
                                InputDescriptor.offloaded(1, 0, 3, KEY)));
        ByteArrayOutputStream payload = new ByteArrayOutputStream();
        payload.writeBytes(ByteBuffer.allocate(16).putLong(1).putLong(2).array());
        payload.writeBytes(secret);
        payload.writeBytes(new byte[] {3, 1, 0, 4, 0, 2}); // task .. attempt, 0 produced, 2 inputs
        payload.writeBytes(new byte[] {0, 2, 1, 0, 3, 5, 6, 7}); // group, range, INLINE, bytes
        payload.writeBytes(new byte[] {1, 0, 3, 1}); // group, range, BLOB
        payload.writeBytes(BaseEncoding.base16().lowerCase().decode(KEY.hex()));
        byte[] expected =
                Envelope.seal(
                        TaskDeploymentDescriptor.MAGIC,
                        TaskDeploymentDescriptor.VERSION,
                        payload.toByteArray(),
                        payload.size(),
                        false);

        assertThat(TaskDeploymentDescriptor.VERSION).isEqualTo(3);
        assertThat(descriptor.encode()).isEqualTo(expected);
        assertThat(TaskDeploymentDescriptor.decode(expected)).isEqualTo(descriptor);
    }
}
