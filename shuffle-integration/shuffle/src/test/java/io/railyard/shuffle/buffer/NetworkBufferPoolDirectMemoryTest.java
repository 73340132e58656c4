package io.railyard.shuffle.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.railyard.shuffle.ShuffleOptions;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A network budget the JVM's direct memory cannot hold fails with a clear error naming the setting,
 * the size and the JVM flag, instead of an {@link OutOfMemoryError} (ARCHITECTURE.md, Reliability
 * row 25), and nothing is allocated or kept.
 */
class NetworkBufferPoolDirectMemoryTest {
    /** The test JVM's limit, read independently of {@link DirectMemory}. */
    private static long directMemoryLimit() {
        String value =
                ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                        .getVMOption("MaxDirectMemorySize")
                        .getValue();
        long configured = Long.parseLong(value);
        return configured == 0 ? Runtime.getRuntime().maxMemory() : configured;
    }

    private static long directMemoryUsed() {
        return ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .filter(pool -> pool.getName().equals("direct"))
                .mapToLong(BufferPoolMXBean::getMemoryUsed)
                .sum();
    }

    @Test
    void current_readsTheJvmLimit() {
        assertThat(DirectMemory.current().limitBytes()).isEqualTo(directMemoryLimit());
    }

    @Test
    void constructor_budgetAboveTheJvmLimit_failsBeforeAllocatingNamingSettingSizeAndFlag() {
        int pageSize = ShuffleOptions.MAX_PAGE_SIZE_BYTES;
        long total = (directMemoryLimit() / pageSize + 2) * pageSize;
        assumeTrue(total / pageSize <= Integer.MAX_VALUE, "the budget stays a valid option");
        ShuffleOptions options =
                ShuffleOptions.builder().pageSizeBytes(pageSize).totalMemoryBytes(total).build();
        long usedBefore = directMemoryUsed();

        assertThatThrownBy(() -> new NetworkBufferPool(options))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        ShuffleOptions.TOTAL_MEMORY_KEY + " = " + ShuffleOptions.bytesText(total))
                .hasMessageContaining("pages of 16 MiB")
                .hasMessageContaining("-XX:MaxDirectMemorySize")
                .hasMessageContaining("lower " + ShuffleOptions.TOTAL_MEMORY_KEY)
                .hasNoCause();
        assertThat(directMemoryUsed()).as("direct memory in use").isEqualTo(usedBefore);
    }

    @Test
    void constructor_100000MiBAsInTheIssue_clearError() {
        long total = 100_000L << 20;
        assumeTrue(total > directMemoryLimit(), "this JVM could hold 100000 MiB");
        ShuffleOptions options = ShuffleOptions.builder().totalMemoryBytes(total).build();
        assertThatThrownBy(() -> new NetworkBufferPool(options))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(ShuffleOptions.TOTAL_MEMORY_KEY + " = 100000 MiB")
                .hasMessageContaining("3200000 pages of 32 KiB")
                .hasMessageContaining("raise -XX:MaxDirectMemorySize to at least");
    }

    @Test
    void constructor_allocationFailsAnyway_outOfMemoryBecomesTheClearErrorAsItsCause() {
        ShuffleOptions options = ShuffleOptions.builder().pageSizeBytes(256).totalPages(8).build();
        DirectMemory unknownLimit = new DirectMemory(Long.MAX_VALUE, 0, "unreadable here");
        AtomicInteger calls = new AtomicInteger();
        OutOfMemoryError exhausted = new OutOfMemoryError("Cannot reserve 2048 bytes (test)");

        assertThatThrownBy(
                        () ->
                                new NetworkBufferPool(
                                        options,
                                        bytes -> {
                                            calls.incrementAndGet();
                                            throw exhausted;
                                        },
                                        unknownLimit))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(ShuffleOptions.TOTAL_MEMORY_KEY + " = 2 KiB")
                .hasMessageContaining("(2 KiB of direct memory)")
                .hasMessageContaining("-XX:MaxDirectMemorySize")
                .hasCause(exhausted);
        assertThat(calls).hasValue(1);
    }
}
