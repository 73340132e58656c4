package io.railyard.shuffle.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.railyard.shuffle.ShuffleOptions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link BufferOwner#lowerGuarantee}: a writer that finished keeps the pages it borrowed, its
 * guarantee goes back to the budget, and what it still holds can be asked back.
 */
class NetworkBufferPoolLowerGuaranteeTest {
    private static NetworkBufferPool pool(int pages) {
        return new NetworkBufferPool(
                ShuffleOptions.builder().pageSizeBytes(256).totalPages(pages).build());
    }

    @Test
    void lowering_returnsTheGuaranteeToTheBudget_andKeepsWhatIsHeld() {
        try (NetworkBufferPool pool = pool(10)) {
            BufferOwner writer = pool.register("writer", 6, "key", null);
            List<Page> held = new ArrayList<>();
            assertThat(writer.tryRequest(8, held)).isTrue(); // 6 guaranteed + 2 borrowed
            for (Page page : held.subList(2, 8)) {
                writer.recycle(page); // the working pages go back
            }

            writer.lowerGuarantee(0);

            assertThat(writer.guaranteedPages()).isZero();
            assertThat(writer.pagesInUse()).isEqualTo(2);
            assertThat(writer.borrowedPages()).isEqualTo(2);
            assertThat(pool.guaranteedPages()).isZero();
            BufferOwner next = pool.register("next", 8, "key", null); // fits only after lowering
            assertThat(next.guaranteedPages()).isEqualTo(8);
            pool.checkInvariants();
            writer.recycle(held.get(0));
            writer.recycle(held.get(1));
            writer.close();
            next.close();
        }
    }

    @Test
    void lowering_belowWhatIsHeld_makesThePagesRevocable() {
        List<Integer> asked = new ArrayList<>();
        try (NetworkBufferPool pool = pool(10)) {
            BufferOwner writer = pool.register("writer", 6, "key", (o, n) -> asked.add(n));
            List<Page> held = new ArrayList<>();
            assertThat(writer.tryRequest(6, held)).isTrue();
            writer.lowerGuarantee(0);
            pool.checkInvariants();

            BufferOwner late = pool.register("late", 8, "key", null); // 4 free, 4 lent out

            assertThat(asked).containsExactly(4);
            for (Page page : held) {
                writer.recycle(page);
            }
            late.close();
            writer.close();
        }
    }

    @Test
    void lowering_badValues_areRejected() {
        try (NetworkBufferPool pool = pool(10)) {
            BufferOwner writer = pool.register("writer", 3, "key", null);
            assertThatThrownBy(() -> writer.lowerGuarantee(4))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("guarantee of 3 pages to [0, 3], not 4");
            assertThatThrownBy(() -> writer.lowerGuarantee(-1))
                    .isInstanceOf(IllegalArgumentException.class);
            writer.close();
            assertThatThrownBy(() -> writer.lowerGuarantee(0))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
        }
    }
}
