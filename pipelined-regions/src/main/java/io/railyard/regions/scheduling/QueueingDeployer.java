package io.railyard.regions.scheduling;

import it.unimi.dsi.fastutil.ints.IntArrayList;

/**
 * A {@link RegionDeployer} that only queues: the regions the strategy schedules during one event
 * are appended to a list the caller owns and deploys once the event's call has returned (the
 * strategy must not be called back from its deployer). O(1) per region; a named class, not a
 * lambda, so that JOL can walk what holds it. Not thread-safe, like the strategy.
 */
public final class QueueingDeployer implements RegionDeployer {
    private final IntArrayList scheduled;

    /** A deployer appending to {@code scheduled}. */
    public QueueingDeployer(IntArrayList scheduled) {
        this.scheduled = scheduled;
    }

    @Override
    public void deploy(int region) {
        scheduled.add(region);
    }
}
