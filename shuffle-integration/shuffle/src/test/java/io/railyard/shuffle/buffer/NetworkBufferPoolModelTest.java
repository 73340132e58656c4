package io.railyard.shuffle.buffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.stream.LongStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random single-threaded operations against a naive model of the documented rules: a request of n
 * pages, e of them within the guarantee, is granted iff {@code free >= n && free - n >= unused -
 * e}; requests within a guarantee wait FIFO, all or nothing; a shortfall asks borrowers with a
 * listener, largest first (ties in registration order), for {@code unused - free} pages. After
 * every operation the pool's counts, futures and revocation asks must equal the model's.
 *
 * <p>Only waiting requests behind the head are cancelled here: cancelling the head is the bug in
 * {@link NetworkBufferPoolTest#cancel_headRequest_servesTheNextRequestThatFits}.
 */
class NetworkBufferPoolModelTest {
    private static final int OPERATIONS = 3_000;

    static LongStream seeds() {
        return LongStream.range(0, 24);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomOperations_matchTheModel(long seed) {
        System.out.println("NetworkBufferPoolModelTest seed " + seed);
        SplittableRandom random = new SplittableRandom(seed);
        Model model = new Model(4 + random.nextInt(29), seed);
        for (int op = 0; op < OPERATIONS; op++) {
            model.step(random, op);
        }
        model.drain();
    }

    private static final class Owner {
        final BufferOwner real;
        final int guarantee;
        final boolean listens;
        final List<Page> held = new ArrayList<>();
        int pending;

        Owner(BufferOwner real, int guarantee, boolean listens) {
            this.real = real;
            this.guarantee = guarantee;
            this.listens = listens;
        }

        int unused() {
            return Math.max(0, guarantee - held.size());
        }

        int borrowed() {
            return Math.max(0, held.size() - guarantee);
        }
    }

    private record Waiting(Owner owner, int pages, CompletableFuture<List<Page>> future) {}

    private static final class Model {
        final NetworkBufferPool pool;
        final int total;
        final long seed;
        final List<Owner> owners = new ArrayList<>();
        final ArrayDeque<Waiting> queue = new ArrayDeque<>();
        final List<String> asked = new ArrayList<>();
        final Set<Integer> heldIndices = new HashSet<>();
        int free;
        int nextName;
        int refused;
        int waited;
        int served;
        int cancelled;
        int asks;
        int insufficient;
        String where = "";

        Model(int total, long seed) {
            this.pool = NetworkBufferPoolTest.pool(total);
            this.total = total;
            this.seed = seed;
            this.free = total;
        }

        int guaranteed() {
            return owners.stream().mapToInt(o -> o.guarantee).sum();
        }

        int unused() {
            return owners.stream().mapToInt(Owner::unused).sum();
        }

        void step(SplittableRandom random, int op) {
            int action = random.nextInt(100);
            if (owners.isEmpty() || (action < 8 && owners.size() < 6)) {
                Owner added = register(random.nextInt(total / 3 + 2), random.nextInt(4) != 0, op);
                if (added != null && added.guarantee > 0 && random.nextBoolean()) {
                    request(added, added.guarantee); // a late owner claiming its pledge
                    check();
                }
                return;
            }
            Owner owner = owners.get(random.nextInt(owners.size()));
            where = "seed " + seed + " op " + op + " " + owner.real;
            if (action < 40) {
                tryRequest(owner, 1 + random.nextInt(Math.min(total, 5)));
            } else if (action < 55) {
                int room = owner.guarantee - owner.held.size() - owner.pending;
                if (room > 0) {
                    request(owner, 1 + random.nextInt(room));
                }
            } else if (action < 90) {
                Owner from = random.nextBoolean() ? owner : largestBorrower();
                if (!from.held.isEmpty()) {
                    recycle(from, from.held.remove(random.nextInt(from.held.size())));
                }
            } else if (action < 94) {
                cancelBehindTheHead(random);
            } else {
                if (random.nextBoolean()) { // finish: give everything back, then close
                    while (!owner.held.isEmpty()) {
                        recycle(owner, owner.held.remove(owner.held.size() - 1));
                    }
                }
                close(owner);
            }
            check();
        }

        private Owner largestBorrower() {
            return owners.stream().max(Comparator.comparingInt(Owner::borrowed)).orElseThrow();
        }

        @Nullable Owner register(int guarantee, boolean listens, int op) {
            String name = "o" + nextName++;
            where = "seed " + seed + " op " + op + " register " + name + " " + guarantee;
            if (guaranteed() + guarantee > total) {
                assertThatThrownBy(() -> pool.register(name, guarantee, "k", null))
                        .as(where)
                        .isInstanceOf(InsufficientNetworkMemoryException.class);
                insufficient++;
                return null;
            }
            BufferOwner real =
                    pool.register(
                            name,
                            guarantee,
                            "k",
                            listens ? (o, n) -> asked.add(o.name() + " " + n) : null);
            Owner owner = new Owner(real, guarantee, listens);
            owners.add(owner);
            expectAsks(revocations());
            check();
            return owner;
        }

        void tryRequest(Owner owner, int n) {
            int entitled = Math.min(n, Math.max(0, owner.unused() - owner.pending));
            boolean expected = free >= n && free - n >= unused() - entitled;
            List<Page> out = new ArrayList<>();
            assertThat(owner.real.tryRequest(n, out))
                    .as(where + " tryRequest " + n)
                    .isEqualTo(expected);
            assertThat(out).hasSize(expected ? n : 0);
            refused += expected ? 0 : 1;
            if (expected) {
                received(owner, out);
            }
            expectAsks();
        }

        void request(Owner owner, int n) {
            CompletableFuture<List<Page>> future = owner.real.request(n);
            if (queue.isEmpty() && free >= n) {
                assertThat(future).as(where + " request " + n + " at once").isCompleted();
                received(owner, future.join());
                expectAsks();
            } else {
                assertThat(future).as(where + " request " + n + " waits").isNotDone();
                queue.add(new Waiting(owner, n, future));
                waited++;
                owner.pending += n;
                expectAsks(revocations());
            }
        }

        void recycle(Owner owner, Page page) {
            heldIndices.remove(page.index());
            owner.real.recycle(page);
            free++;
            expectAsks(serve());
        }

        void cancelBehindTheHead(SplittableRandom random) {
            if (queue.size() < 2) {
                return;
            }
            List<Waiting> waiting = new ArrayList<>(queue);
            Waiting victim = waiting.get(1 + random.nextInt(waiting.size() - 1));
            assertThat(victim.future().cancel(false)).as(where + " cancel").isTrue();
            queue.remove(victim);
            cancelled++;
            victim.owner().pending -= victim.pages();
            expectAsks(serve()); // a cancel serves the queue, and asks again while requests wait
        }

        void close(Owner owner) {
            if (!owner.held.isEmpty()) {
                assertThatThrownBy(owner.real::close)
                        .as(where + " close")
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("holding " + owner.held.size() + " pages");
                expectAsks();
                return;
            }
            owner.real.close();
            owners.remove(owner);
            List<Waiting> cancelled = new ArrayList<>();
            queue.removeIf(w -> w.owner() == owner && cancelled.add(w));
            owner.pending = 0;
            for (Waiting w : cancelled) {
                assertThat(w.future()).as(where + " cancelled by close").isCompletedExceptionally();
            }
            expectAsks(serve());
        }

        /** Serves the queue head while it fits; then the asks if requests still wait. */
        private List<String> serve() {
            while (!queue.isEmpty() && queue.peek().pages() <= free) {
                Waiting w = queue.poll();
                w.owner().pending -= w.pages();
                assertThat(w.future()).as(where + " served " + w.pages()).isCompleted();
                received(w.owner(), w.future().join());
                served++;
            }
            return queue.isEmpty() ? List.of() : revocations();
        }

        private List<String> revocations() {
            int shortfall = unused() - free;
            List<String> asks = new ArrayList<>();
            List<Owner> borrowers = new ArrayList<>();
            for (Owner o : owners) {
                if (o.listens && o.borrowed() > 0) {
                    borrowers.add(o);
                }
            }
            borrowers.sort(Comparator.comparingInt(Owner::borrowed).reversed()); // stable
            for (Owner o : borrowers) {
                if (shortfall <= 0) {
                    break;
                }
                int ask = Math.min(shortfall, o.borrowed());
                asks.add(o.real.name() + " " + ask);
                shortfall -= ask;
            }
            return asks;
        }

        private void received(Owner owner, List<Page> pages) {
            for (Page page : pages) {
                assertThat(heldIndices.add(page.index()))
                        .as(where + " page " + page.index() + " handed out twice")
                        .isTrue();
                assertThat(page.buffer().position()).isZero();
                assertThat(page.buffer().limit()).isEqualTo(page.buffer().capacity());
                page.buffer().position(1);
                owner.held.add(page);
                free--;
            }
        }

        private void expectAsks() {
            expectAsks(List.of());
        }

        private void expectAsks(List<String> expected) {
            assertThat(asked).as(where + " revocation asks").isEqualTo(expected);
            asks += expected.size();
            asked.clear();
        }

        void check() {
            pool.checkInvariants();
            assertThat(pool.freePages()).as(where + " free").isEqualTo(free);
            assertThat(pool.guaranteedPages()).as(where).isEqualTo(guaranteed());
            List<OwnerStats> stats = new ArrayList<>();
            for (Owner o : owners) {
                stats.add(new OwnerStats(o.real.name(), o.guarantee, o.held.size()));
            }
            assertThat(pool.owners()).as(where + " owners").isEqualTo(stats);
            for (Waiting w : queue) {
                assertThat(w.future()).as(where + " still waiting").isNotDone();
            }
        }

        /** Gives everything back, closes every owner and checks the pool is whole. */
        void drain() {
            System.out.printf(
                    "seed %s: %s pages, %s refused, %s waited, %s served, %s cancelled, %s asks,"
                            + " %s insufficient%n",
                    seed, total, refused, waited, served, cancelled, asks, insufficient);
            where = "seed " + seed + " drain";
            for (Waiting w : queue) {
                assertThat(w.future().cancel(false)).as(where).isTrue();
                w.owner().pending -= w.pages();
            }
            queue.clear();
            for (Owner o : owners) {
                while (!o.held.isEmpty()) {
                    recycle(o, o.held.remove(o.held.size() - 1));
                    asked.clear();
                }
            }
            for (Owner o : new ArrayList<>(owners)) {
                close(o);
                asked.clear();
            }
            assertThat(queue).isEmpty();
            assertThat(pool.freePages()).as(where).isEqualTo(total);
            pool.checkInvariants();
            pool.close();
        }
    }
}
