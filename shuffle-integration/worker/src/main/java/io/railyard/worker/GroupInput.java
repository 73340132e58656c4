package io.railyard.worker;

import io.railyard.deployment.GroupDescriptors;
import io.railyard.shuffle.PartitionLostException;
import io.railyard.shuffle.partition.PartitionFeed;
import io.railyard.shuffle.partition.ResultPartition;
import io.railyard.topology.PartitionId;
import java.util.Arrays;

/**
 * The partitions of one consumed group that a worker reads directly (in its process), shared by
 * every gate of the group on the worker: one {@link PartitionFeed} that each partition joins as its
 * producer registers it, whichever registry holds it — so a group of 10,000 partitions costs a
 * worker one lookup per partition, not one per partition and consumer. Its direct partitions are
 * the group's partitions at {@link #channels()}; the rest (on other workers, with a network) are
 * read over the network.
 *
 * <p>Waiting for a producer: a partition not registered yet joins when it is ({@link
 * PartitionRegistry#whenThere}); a released one fails the feed; one whose worker registered nothing
 * for the registry's wait fails it too, as {@link PartitionRegistry#await} gives up — a check the
 * consumers drive ({@link #checkWaits}).
 *
 * <p>Thread-safe. Made in O(direct partitions), once per worker and group: gates come and go.
 */
final class GroupInput {
    private final PartitionFeed feed;
    private final int[] channels;
    private final PartitionId[] ids;
    private final PartitionRegistry[] holders;
    private final long sinceNanos = System.nanoTime();

    private volatile int firstMissing; // every direct partition before it joined

    /**
     * The direct partitions of {@code group} — those {@code direct} says this worker reads itself,
     * at the group indexes {@code channels} — feeding {@code feed}, found through {@code registry}.
     */
    GroupInput(
            GroupDescriptors group,
            int[] channels,
            PartitionFeed feed,
            java.util.function.IntFunction<PartitionRegistry> registry) {
        this.feed = feed;
        this.channels = channels;
        this.ids = new PartitionId[channels.length];
        this.holders = new PartitionRegistry[channels.length];
        for (int k = 0; k < channels.length; k++) {
            int i = channels[k];
            ids[k] = new PartitionId(group.firstPartition() + i, group.producerAttempt(i));
            holders[k] = registry.apply(group.worker(i));
        }
        for (int k = 0; k < channels.length; k++) {
            int index = k;
            holders[k].whenThere(ids[k], () -> join(index));
        }
    }

    /** Partition {@code k} is registered or released at its holder: it joins, or fails the feed. */
    private void join(int k) {
        try {
            ResultPartition partition = holders[k].find(ids[k]);
            if (partition != null) {
                feed.add(k, partition);
            }
        } catch (PartitionLostException lost) {
            feed.fail(lost);
        }
    }

    /** The feed the gates read (its partition {@code k} is the group's {@code channels()[k]}). */
    PartitionFeed feed() {
        return feed;
    }

    /** The group indexes of the direct partitions, in the feed's order. */
    int[] channels() {
        return channels;
    }

    /** Whether every partition of the group is read directly (the feed's index is the group's). */
    boolean isWhole(int groupSize) {
        return channels.length == groupSize;
    }

    /**
     * Fails the feed if a partition is still not registered and its worker registered nothing for
     * the registry's wait since the feed was made: a producer that never comes. O(partitions joined
     * since the last check).
     */
    void checkWaits() {
        if (feed.isComplete() || feed.failure() != null) {
            return;
        }
        int k = firstMissing;
        while (k < ids.length && feed.hasJoined(k)) {
            k++;
        }
        firstMissing = k;
        if (k < ids.length) {
            try {
                holders[k].checkWait(ids[k], sinceNanos);
            } catch (PartitionLostException lost) {
                feed.fail(lost);
            }
        }
    }

    /** The direct channels of a group of {@code size}: those {@code direct} holds. */
    static int[] directChannels(GroupDescriptors group, java.util.function.IntPredicate direct) {
        int[] all = new int[group.size()];
        int n = 0;
        for (int i = 0; i < group.size(); i++) {
            if (direct.test(group.worker(i))) {
                all[n++] = i;
            }
        }
        return n == all.length ? all : Arrays.copyOf(all, n);
    }

    /** The channels of the group read over the network: those not in {@code direct}. */
    static int[] otherChannels(int size, int[] direct) {
        int[] rest = new int[size - direct.length];
        int n = 0;
        int d = 0;
        for (int i = 0; i < size; i++) {
            if (d < direct.length && direct[d] == i) {
                d++;
            } else {
                rest[n++] = i;
            }
        }
        return rest;
    }

    @Override
    public String toString() {
        return feed.name();
    }
}
