package io.railyard.regions.scheduling;

import static com.google.common.base.Preconditions.checkElementIndex;

import io.railyard.topology.PackedRange;
import it.unimi.dsi.fastutil.ints.AbstractIntList;
import it.unimi.dsi.fastutil.ints.IntList;
import it.unimi.dsi.fastutil.longs.LongArrayList;

/**
 * A {@link RegionDeployer} that only queues: the regions the strategy schedules during one event
 * are queued here and deployed by the owner once the event's call has returned (the strategy must
 * not be called back from its deployer). A named class, not a lambda, so that JOL can walk what
 * holds it. Not thread-safe, like the strategy.
 *
 * <p>Regions are kept as runs of consecutive ids: the last source of a BLOCKING all-to-all job
 * schedules every sink region at once, in id order, which is one run here instead of a million
 * ints. O(1) per region queued; {@link #regions()} reads them in order, O(1) per element read in
 * sequence (a read that goes back starts again from the first run). {@link #clear()} keeps at most
 * {@value #RETAINED_RUNS} runs' room, so one large event does not leave its buffer behind for the
 * job's lifetime.
 */
public final class QueueingDeployer implements RegionDeployer {
    private static final int RETAINED_RUNS = 1024;

    private final LongArrayList runs = new LongArrayList(); // PackedRange of region ids
    private final Regions view = new Regions();
    private int size;

    @Override
    public void deploy(int region) {
        int last = runs.size() - 1;
        if (last >= 0 && PackedRange.end(runs.getLong(last)) == region) {
            runs.set(last, PackedRange.of(PackedRange.start(runs.getLong(last)), region + 1));
        } else {
            runs.add(PackedRange.of(region, region + 1));
        }
        size++;
    }

    /** Whether nothing is queued. O(1). */
    public boolean isEmpty() {
        return size == 0;
    }

    /**
     * The queued regions in the order they were scheduled: a read-only live view, valid until
     * {@link #clear()}. O(1).
     */
    public IntList regions() {
        return view;
    }

    /** Forgets every queued region. O(1), or O(runs) to shrink a large buffer. */
    public void clear() {
        runs.clear();
        runs.trim(RETAINED_RUNS);
        size = 0;
        view.run = 0;
        view.runFirst = 0;
    }

    /** The queued regions as a list, read through the runs. */
    private final class Regions extends AbstractIntList {
        // The run the last read fell in and the list index of its first region: sequential reads
        // stay in it or move to the next one.
        private int run;
        private int runFirst;

        @Override
        public int size() {
            return size;
        }

        @Override
        public int getInt(int index) {
            checkElementIndex(index, size, "index");
            if (index < runFirst) {
                run = 0;
                runFirst = 0;
            }
            while (index >= runFirst + PackedRange.size(runs.getLong(run))) {
                runFirst += PackedRange.size(runs.getLong(run));
                run++;
            }
            return PackedRange.start(runs.getLong(run)) + index - runFirst;
        }
    }
}
