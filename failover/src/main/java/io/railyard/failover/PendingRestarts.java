package io.railyard.failover;

import io.railyard.topology.PackedInts;
import java.util.IdentityHashMap;

/**
 * The RESTART decisions of one job waiting for their delay, and which decision owns each region:
 * the latest one that includes it. When a decision's delay is over, {@link #restart} restarts only
 * the regions no later decision took over (their producers may still be waiting for that later
 * restart, unplaced), as Flink restarts only the vertices not modified since the decision.
 *
 * <p>An int per region and an entry per pending decision; {@link #add} is O(the decision's
 * regions), {@link #restart} what {@link FailoverHandler#restart(FailureHandling.Restart,
 * java.util.function.IntPredicate)} costs. Not thread-safe: the JobManager's main thread, like the
 * handler.
 */
public final class PendingRestarts {
    private final PackedInts latestDecision; // per region; widens as decisions are numbered
    private final IdentityHashMap<FailureHandling.Restart, Integer> pending =
            new IdentityHashMap<>();
    private int decisions;

    /** Tracking for a job of {@code numRegions} regions. */
    public PendingRestarts(int numRegions) {
        this.latestDecision = PackedInts.zeros(numRegions);
    }

    /** Records a RESTART decision: it now owns its regions. */
    public void add(FailureHandling.Restart handling) {
        int decision = ++decisions;
        handling.tasks().forEachRegion(region -> latestDecision.set(region, decision));
        pending.put(handling, decision);
    }

    /**
     * Restarts {@code handling}'s regions that it still owns through {@code failover}; a decision
     * never {@link #add added} restarts all its regions.
     *
     * @throws IllegalStateException as {@link FailoverHandler#restart(FailureHandling.Restart)}
     */
    public void restart(FailoverHandler failover, FailureHandling.Restart handling) {
        Integer decision = pending.remove(handling);
        if (decision == null) {
            failover.restart(handling);
        } else {
            int own = decision;
            failover.restart(handling, region -> latestDecision.get(region) == own);
        }
    }
}
