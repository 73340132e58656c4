package io.railyard.shuffle.partition;

import it.unimi.dsi.fastutil.ints.IntOpenHashSet;
import it.unimi.dsi.fastutil.ints.IntSet;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.IdentityHashMap;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Who reads one {@link HybridPartition}: its stream readers (attached ever, and now), the
 * subpartitions abandoned for good (read once), the feeds whose gates read its regions, the readers
 * parked until the next region, and — for a partition read once — which claimer (a feed, for its
 * gates, or a stream reader) claimed each subpartition.
 *
 * <p>Not thread-safe: reached only through fields the partition's lock guards (the partition's own
 * and its {@link HybridCursors}'); every method must be called with that lock held. Nothing here
 * calls a gate or wakes a reader: what to wake is returned, for the partition to wake once its lock
 * is released. A feed is only told of regions under it ({@link PartitionFeed}'s monitor comes after
 * the partition's in the lock order). O(1) per call but where noted; a claim allocates a bit per
 * subpartition at the first claim, and a bit set per claimer.
 */
final class HybridReaders {
    private final boolean readOnce;
    private final int numSubpartitions;

    private final IntOpenHashSet abandoned = new IntOpenHashSet();
    private final IntOpenHashSet streamReadersEver = new IntOpenHashSet();
    private int streamReadersNow;
    private final List<FeedLink> feeds = new ArrayList<>(2);
    private final List<HybridReader> parked = new ArrayList<>();

    // Read once: the subpartitions some reader claimed, and those each claimer claimed — a feed
    // (for its gates) or a stream reader — a bit per subpartition, made at the first claim.
    private @Nullable BitSet claimed;
    private final IdentityHashMap<Object, BitSet> claims = new IdentityHashMap<>(2);

    /** A feed the partition publishes to, at its index there. */
    private record FeedLink(PartitionFeed feed, int index) {}

    /** The readers of a partition of {@code numSubpartitions}, read once if {@code readOnce}. */
    HybridReaders(boolean readOnce, int numSubpartitions) {
        this.readOnce = readOnce;
        this.numSubpartitions = numSubpartitions;
    }

    // ---- stream readers ----

    /** A stream reader of {@code subpartition} attached. */
    void streamAttached(int subpartition) {
        streamReadersEver.add(subpartition);
        streamReadersNow++;
    }

    /** A stream reader detached. */
    void streamDetached() {
        streamReadersNow--;
    }

    /** {@code subpartition}'s stream reader gave up early (read once): nobody reads it again. */
    void abandon(int subpartition) {
        abandoned.add(subpartition);
    }

    /** The subpartitions abandoned for good: a new region is passed for them at once. */
    IntSet abandoned() {
        return abandoned;
    }

    /** Readers attached now: stream readers and the gates of every feed. O(feeds). */
    int attachedNow() {
        int now = streamReadersNow;
        for (FeedLink link : feeds) {
            now += link.feed().readersNow();
        }
        return now;
    }

    /**
     * Whether every subpartition has had a reader: through a feed's gate or a stream reader. The
     * feeds each count their own gates' subpartitions, so a subpartition read through two feeds
     * (two workers of a consumer group) counts once per feed — there is one per subpartition.
     * O(feeds).
     */
    boolean everyAttached() {
        int ever = streamReadersEver.size();
        for (FeedLink link : feeds) {
            ever += link.feed().readersEver();
        }
        return ever >= numSubpartitions;
    }

    // ---- parked readers ----

    /** {@code reader} found no data: it waits for the next region (or the end, or a loss). */
    void park(HybridReader reader) {
        parked.add(reader);
    }

    /** {@code reader} stopped: it waits no more. O(parked readers). */
    void unpark(HybridReader reader) {
        parked.remove(reader);
    }

    /** The parked readers, removed: to wake once the lock is released. O(parked readers). */
    List<HybridReader> takeParked() {
        if (parked.isEmpty()) {
            return List.of();
        }
        List<HybridReader> wake = new ArrayList<>(parked);
        parked.clear();
        return wake;
    }

    // ---- claims ----

    /**
     * Read once: claims {@code subpartition} for {@code claimer} (a feed, whose gates read it on,
     * or a stream reader) at its first read; false if another claimer has claimed it. Always true
     * for a partition read again and again. O(1): a bit per subpartition claimed, and one per
     * subpartition each claimer claimed (a partition is read by a feed per worker of its
     * consumers).
     */
    boolean claim(int subpartition, Object claimer) {
        if (!readOnce) {
            return true;
        }
        BitSet any = claimed;
        if (any == null) {
            any = new BitSet(numSubpartitions);
            claimed = any;
        }
        BitSet mine = claims.get(claimer);
        if (any.get(subpartition)) {
            return mine != null && mine.get(subpartition);
        }
        if (mine == null) {
            mine = new BitSet(); // grows to the claimer's highest subpartition
            claims.put(claimer, mine);
        }
        any.set(subpartition);
        mine.set(subpartition);
        return true;
    }

    // ---- feeds ----

    /**
     * {@code feed} reads the partition as its partition {@code index}: it is told of {@code
     * published}, the regions so far, and of the end if {@code finished}; returns the gates to
     * wake. O(regions so far).
     */
    List<LocalInputGate> addFeed(
            PartitionFeed feed, int index, List<HybridRegion> published, boolean finished) {
        List<LocalInputGate> gates = List.of();
        feeds.add(new FeedLink(feed, index));
        for (HybridRegion region : published) {
            gates = plus(gates, feed.regionPublishedLocked(index, region, readOnce));
        }
        if (finished) {
            gates = plus(gates, feed.partitionFinishedLocked(index));
        }
        return gates;
    }

    /** {@code feed} reads the partition no more. O(feeds). */
    void removeFeed(PartitionFeed feed) {
        feeds.removeIf(link -> link.feed() == feed);
    }

    /** The feeds reading the partition now, as a list of their own. O(feeds). */
    List<PartitionFeed> feeds() {
        List<PartitionFeed> all = new ArrayList<>(feeds.size());
        for (FeedLink link : feeds) {
            all.add(link.feed());
        }
        return all;
    }

    /**
     * Tells every feed of {@code region}, just published (each lets it go for the subpartitions
     * abandoned there: the caller drops it if no one needs it any more); returns the gates to wake.
     * O(feeds).
     */
    List<LocalInputGate> regionPublished(HybridRegion region) {
        List<LocalInputGate> gates = List.of();
        for (FeedLink link : feeds) {
            gates = plus(gates, link.feed().regionPublishedLocked(link.index(), region, readOnce));
        }
        return gates;
    }

    /** Tells every feed the producer finished; returns the gates to wake. O(feeds). */
    List<LocalInputGate> producerFinished() {
        List<LocalInputGate> gates = List.of();
        for (FeedLink link : feeds) {
            gates = plus(gates, link.feed().partitionFinishedLocked(link.index()));
        }
        return gates;
    }

    private static <T> List<T> plus(List<T> a, List<T> b) {
        if (b.isEmpty()) {
            return a;
        }
        if (a.isEmpty()) {
            return b;
        }
        List<T> both = new ArrayList<>(a);
        both.addAll(b);
        return both;
    }
}
