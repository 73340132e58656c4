package io.railyard.shuffle.partition;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.railyard.shuffle.PartitionLostException;
import it.unimi.dsi.fastutil.ints.Int2IntOpenHashMap;
import it.unimi.dsi.fastutil.ints.IntOpenHashSet;
import it.unimi.dsi.fastutil.objects.ReferenceLinkedOpenHashSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The partitions one group of consumers reads, as one log of what became readable: what every gate
 * of the group on a worker reads from, so that the state of a connection between a consumer and a
 * partition exists only while the partition has data for it. A finished blocking partition is one
 * entry (all of it); a hybrid or pipelined partition is an entry per region it publishes, in order.
 * Each gate keeps a cursor into the log and reads, of each entry, its own subpartition — so a gate
 * of 10,000 channels holds one cursor, not 10,000 channel objects, and a partition publishing a
 * region appends one entry per feed, not one per reader.
 *
 * <h2>Design notes</h2>
 *
 * <ul>
 *   <li>Partitions join as their producers register them ({@link #add}, by the worker's registry
 *       through whoever opened the feed), in any order and before or after gates open; a hybrid
 *       partition then appends its regions so far and every later one, and says when it finished.
 *       The feed is complete once every partition joined and finished.
 *   <li>Who reads: gates register the subpartition they read; for a partition read once (selective,
 *       pipelined) a second gate of one subpartition is refused, and a gate closed before its end
 *       abandons its subpartition, whose data in entries still to come is let go at once.
 *   <li>Waking: a gate that reached the end of the log parks here and is woken by the next entry,
 *       the feed's completion or its failure — once, whatever number of entries arrive meanwhile.
 *   <li>Memory: the partitions (one reference each), the log (an int and a reference per entry),
 *       and per subpartition nothing but a bit while a gate of it is open or was abandoned.
 * </ul>
 *
 * <p>Thread-safe. Its monitor comes after a {@code HybridPartition}'s in the lock order (a
 * partition appends under its own lock) and before the file monitors and the pool; nothing is
 * called under it, and gates are woken after it is released. Appends are amortised O(1); a gate
 * reads entries in batches, O(entries).
 */
public final class PartitionFeed {
    private final String name;
    private final int numPartitions;

    @GuardedBy("this")
    private final @Nullable ResultPartition[] partitions;

    @GuardedBy("this")
    private int added;

    @GuardedBy("this")
    private int finished;

    // The log: entry e is the region entryRegion[e] of partition entryPartition[e], or, where the
    // region is null, all of blocking partition entryPartition[e].
    @GuardedBy("this")
    private int[] entryPartition = new int[16];

    @GuardedBy("this")
    private @Nullable HybridRegion[] entryRegion = new HybridRegion[16];

    @GuardedBy("this")
    private int size;

    // Gates open per subpartition, subpartitions that ever had one, and those abandoned.
    @GuardedBy("this")
    private final Int2IntOpenHashMap reading = new Int2IntOpenHashMap();

    @GuardedBy("this")
    private final IntOpenHashSet ever = new IntOpenHashSet();

    @GuardedBy("this")
    private final IntOpenHashSet abandoned = new IntOpenHashSet();

    // Insertion-ordered, O(1) to add, find and remove: thousands of gates may park on one feed.
    @GuardedBy("this")
    private ReferenceLinkedOpenHashSet<LocalInputGate> parked = new ReferenceLinkedOpenHashSet<>();

    @GuardedBy("this")
    private @Nullable PartitionLostException failure;

    // Whether its partitions are read once (learnt from the first hybrid one to join).
    @GuardedBy("this")
    private boolean readOnce;

    @GuardedBy("this")
    private boolean closed;

    /** A feed named {@code name} (for errors) of {@code numPartitions} partitions, none joined. */
    PartitionFeed(String name, int numPartitions) {
        this.name = name;
        this.numPartitions = numPartitions;
        this.partitions = new ResultPartition[numPartitions];
    }

    /** The feed's name, for errors. */
    public String name() {
        return name;
    }

    /** Number of partitions: a gate's channel {@code i} reads partition {@code i}. */
    public int numPartitions() {
        return numPartitions;
    }

    /**
     * Partition {@code index} is readable: {@code partition} joins the feed — a finished blocking
     * partition as one entry, a hybrid one with every region it publishes. Idempotent per index.
     * O(regions published so far).
     *
     * @throws IndexOutOfBoundsException if there is no such index
     */
    public void add(int index, ResultPartition partition) {
        List<LocalInputGate> wake;
        synchronized (this) {
            if (partitions[index] != null || closed) {
                return;
            }
            partitions[index] = partition;
            added++;
            if (partition instanceof HybridPartition hybrid) {
                readOnce |= hybrid.isReadOnce();
                wake = List.of();
            } else {
                appendLocked(index, null);
                finished++;
                wake = takeParkedLocked();
            }
        }
        if (partition instanceof HybridPartition hybrid) {
            hybrid.attachFeed(this, index); // appends its regions under its own lock
        }
        wakeAll(wake);
    }

    /**
     * The feed cannot be read any more (a partition was lost or released, or its producer never
     * registered it): every gate fails with {@code cause}, now or at its next poll. The first
     * failure wins.
     */
    public void fail(PartitionLostException cause) {
        List<LocalInputGate> wake;
        synchronized (this) {
            if (failure == null) {
                failure = cause;
            }
            wake = takeParkedLocked();
        }
        wakeAll(wake);
    }

    /**
     * Stops the feed: its hybrid partitions forget it (it receives no more entries). For the owner,
     * once no gate reads it. Idempotent; O(partitions).
     */
    public void close() {
        List<HybridPartition> detach = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            for (ResultPartition partition : partitions) {
                if (partition instanceof HybridPartition hybrid) {
                    detach.add(hybrid);
                }
            }
        }
        for (HybridPartition partition : detach) {
            partition.detachFeed(this);
        }
    }

    /** Whether every partition joined the feed and (if hybrid) finished producing. */
    public synchronized boolean isComplete() {
        return finished == numPartitions;
    }

    /** Partitions joined so far. */
    public synchronized int partitionsAdded() {
        return added;
    }

    /** Gates reading the feed now. */
    public synchronized int gates() {
        return reading.size();
    }

    // ---- for the partitions (under their locks) ----

    /**
     * A hybrid partition at {@code index} published {@code region} (under the partition's lock):
     * appended, and let go at once for the subpartitions abandoned here — the partition then drops
     * it if no subpartition needs it any more (it looks at the region's readers after this call).
     * Returns the parked gates to wake once the partition's lock is released.
     */
    List<LocalInputGate> regionPublishedLocked(int index, HybridRegion region, boolean readOnce) {
        synchronized (this) {
            if (closed) {
                return List.of();
            }
            appendLocked(index, region);
            if (readOnce && !abandoned.isEmpty()) {
                for (int s : abandoned) {
                    region.pass(s); // the partition drops the region if no one needs it now
                }
            }
            return takeParkedLocked();
        }
    }

    /** The hybrid partition at {@code index} finished producing; as above. */
    List<LocalInputGate> partitionFinishedLocked(int index) {
        synchronized (this) {
            if (closed) {
                return List.of();
            }
            finished++;
            return takeParkedLocked();
        }
    }

    /** Subpartitions with a gate open now (for the partition's residence rule). */
    synchronized int readersNow() {
        return reading.size();
    }

    /** Subpartitions that ever had a gate here (for a pipelined producer's absent consumers). */
    synchronized int readersEver() {
        return ever.size();
    }

    // ---- for the gates ----

    /**
     * Registers a gate of {@code subpartition}.
     *
     * @throws PartitionLostException if (partitions read once) a gate of that subpartition was
     *     abandoned here before: its data is gone, the producers must run again (a feed that failed
     *     fails the gate at its first poll)
     * @throws IllegalStateException if the partitions are read once and another gate reads that
     *     subpartition
     */
    synchronized void register(int subpartition) throws PartitionLostException {
        if (readOnce && reading.get(subpartition) > 0) {
            throw new IllegalStateException(
                    "subpartition "
                            + subpartition
                            + " of '"
                            + name
                            + "' is read by another gate; a partition read once has one reader per"
                            + " subpartition");
        }
        if (readOnce && abandoned.contains(subpartition)) {
            ResultPartition any = firstJoinedLocked();
            if (any != null) {
                throw new PartitionLostException(
                        any.id(),
                        "subpartition "
                                + subpartition
                                + " was read before and its data is gone (consumed data is kept"
                                + " nowhere); the producer must run again",
                        null);
            }
        }
        reading.addTo(subpartition, 1);
        ever.add(subpartition);
    }

    /**
     * The gate of {@code subpartition} closed; with {@code abandoned} (before its end, of a feed
     * read once) its data in entries to come is let go at once.
     */
    synchronized void unregister(int subpartition, boolean abandoned, LocalInputGate gate) {
        if (reading.addTo(subpartition, -1) <= 1) {
            reading.remove(subpartition);
        }
        if (abandoned && readOnce) {
            this.abandoned.add(subpartition);
        }
        parked.remove(gate);
    }

    /** Whether partition {@code index} joined the feed. */
    public synchronized boolean hasJoined(int index) {
        return partitions[index] != null;
    }

    /** Entries in the log now. */
    synchronized int size() {
        return size;
    }

    /**
     * Copies entries {@code [from, from + max)} that exist into the arrays; returns how many.
     * O(copied).
     */
    synchronized int entries(int from, int[] partition, @Nullable HybridRegion[] region, int max) {
        int n = Math.max(0, Math.min(max, size - from));
        System.arraycopy(entryPartition, from, partition, 0, n);
        System.arraycopy(entryRegion, from, region, 0, n);
        return n;
    }

    /** The partition at {@code index}, once it joined. */
    synchronized @Nullable ResultPartition partition(int index) {
        return partitions[index];
    }

    /** The feed's failure ({@link #fail}), or null while it can be read. */
    public synchronized @Nullable PartitionLostException failure() {
        return failure;
    }

    /**
     * Parks {@code gate}, which read every entry up to {@code cursor}, until the next entry, the
     * completion or a failure; false, parking nothing, if one of those is there already.
     */
    synchronized boolean park(LocalInputGate gate, int cursor) {
        if (cursor < size || finished == numPartitions || failure != null || closed) {
            return false;
        }
        parked.add(gate); // once: a set
        return true;
    }

    // ---- under the lock ----

    @GuardedBy("this")
    private void appendLocked(int index, @Nullable HybridRegion region) {
        if (size == entryPartition.length) {
            int grown = size * 2;
            entryPartition = Arrays.copyOf(entryPartition, grown);
            entryRegion = Arrays.copyOf(entryRegion, grown);
        }
        entryPartition[size] = index;
        entryRegion[size] = region;
        size++;
    }

    @GuardedBy("this")
    private List<LocalInputGate> takeParkedLocked() {
        if (parked.isEmpty()) {
            return List.of();
        }
        List<LocalInputGate> wake = new ArrayList<>(parked);
        parked = new ReferenceLinkedOpenHashSet<>(); // not clear(): O(capacity)
        return wake;
    }

    @GuardedBy("this")
    private @Nullable ResultPartition firstJoinedLocked() {
        for (ResultPartition partition : partitions) {
            if (partition != null) {
                return partition;
            }
        }
        return null;
    }

    /** Wakes {@code gates} (outside every lock). */
    static void wakeAll(List<LocalInputGate> gates) {
        for (int i = 0; i < gates.size(); i++) {
            gates.get(i).feedAdvanced();
        }
    }
}
