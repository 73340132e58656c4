package io.railyard.shuffle.buffer;

import static org.assertj.core.api.Assertions.assertThat;

import io.railyard.shuffle.ShuffleOptions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Spare pages ({@link NetworkBufferPool#sparePages}, {@link NetworkBufferPool#onSpare}) and the
 * pages lent to owners that drain by themselves ({@link NetworkBufferPool#drainingPages}): what a
 * pipelined producer and a task's start wait for instead of having borrowers asked back.
 */
class NetworkBufferPoolSpareTest {
    /** An owner whose borrowed pages come back as its readers consume them. */
    private static final RevocationListener DRAINS =
            new RevocationListener() {
                @Override
                public void revoke(BufferOwner owner, int pages) {}

                @Override
                public boolean drains() {
                    return true;
                }
            };

    private static NetworkBufferPool pool(int pages) {
        return new NetworkBufferPool(
                ShuffleOptions.builder().pageSizeBytes(256).totalPages(pages).build());
    }

    @Test
    void drainingPages_countOnlyWhatADrainingOwnerBorrowsBeyondItsGuarantee() {
        try (NetworkBufferPool pool = pool(10)) {
            BufferOwner pipelined = pool.register("pipelined", 2, "key", DRAINS);
            BufferOwner other = pool.register("other", 1, "key", (o, n) -> {});
            List<Page> drained = new ArrayList<>();
            List<Page> held = new ArrayList<>();
            assertThat(pipelined.tryRequest(5, drained)).isTrue(); // 2 guaranteed + 3 borrowed
            assertThat(other.tryRequest(3, held)).isTrue(); // 1 + 2 borrowed, not draining

            assertThat(pool.drainingPages()).isEqualTo(3);
            assertThat(pool.sparePages()).isEqualTo(2); // 10 - 8 in use, no guarantee unused
            pool.checkInvariants();

            pipelined.lowerGuarantee(0); // a finished writer: all it holds is borrowed now
            assertThat(pool.drainingPages()).isEqualTo(5);
            pipelined.recycle(drained.remove(0));
            assertThat(pool.drainingPages()).isEqualTo(4);
            assertThat(pool.drainedPages()).isEqualTo(1);
            pool.checkInvariants();

            drained.forEach(pipelined::recycle);
            held.forEach(other::recycle);
            assertThat(pool.drainingPages()).isZero();
            pipelined.close();
            other.close();
        }
    }

    @Test
    void onSpare_runsAtOnceWhenCovered_elseWhenADrainingOwnerGivesPagesBack_inOrder() {
        try (NetworkBufferPool pool = pool(8)) {
            BufferOwner pipelined = pool.register("pipelined", 0, "key", DRAINS);
            List<Page> drained = new ArrayList<>();
            assertThat(pipelined.tryRequest(7, drained)).isTrue();
            List<String> served = new ArrayList<>();

            pool.onSpare(1, () -> served.add("now"));
            assertThat(served).containsExactly("now");

            pool.onSpare(2, () -> served.add("first")); // 1 spare: waits
            pool.onSpare(1, () -> served.add("second")); // behind the first, though 1 is spare
            assertThat(served).containsExactly("now");

            pipelined.recycle(drained.remove(0)); // 2 spare: the first, then not the second
            assertThat(served).containsExactly("now", "first");
            pipelined.recycle(drained.remove(0)); // served cumulatively: 3 spare covers 2 + 1
            assertThat(served).containsExactly("now", "first", "second");

            drained.forEach(pipelined::recycle);
            pipelined.close();
        }
    }

    @Test
    void onSpare_counts_guaranteesNobodyUses_asNotSpare() {
        try (NetworkBufferPool pool = pool(6)) {
            BufferOwner reserved = pool.register("reserved", 4, "key", null); // 4 unused, kept
            BufferOwner pipelined = pool.register("pipelined", 0, "key", DRAINS);
            List<Page> drained = new ArrayList<>();
            assertThat(pipelined.tryRequest(2, drained)).isTrue();
            List<String> served = new ArrayList<>();

            assertThat(pool.sparePages()).isZero();
            pool.onSpare(1, () -> served.add("waiter"));
            assertThat(served).isEmpty();

            pipelined.recycle(drained.remove(0));
            assertThat(served).containsExactly("waiter");

            drained.forEach(pipelined::recycle);
            pipelined.close();
            reserved.close();
        }
    }

    @Test
    void close_runsEveryWaiter_soThatNobodyWaitsForAPoolThatIsGone() {
        List<String> served = new ArrayList<>();
        NetworkBufferPool pool = pool(2);
        BufferOwner pipelined = pool.register("pipelined", 0, "key", DRAINS);
        List<Page> drained = new ArrayList<>();
        assertThat(pipelined.tryRequest(2, drained)).isTrue();
        pool.onSpare(3, () -> served.add("more than the pool")); // can never be covered
        drained.forEach(pipelined::recycle);
        assertThat(served).isEmpty();
        pipelined.close();

        pool.close();

        assertThat(served).containsExactly("more than the pool");
    }
}
