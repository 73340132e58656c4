package io.railyard.regions.scheduling;

/**
 * Where the {@link RegionSchedulingStrategy} sends regions that became schedulable: the scheduler
 * behind it allocates slots and deploys the region's tasks. Called on the strategy's thread, once
 * per region and attempt, in ascending topological rank within one event. An implementation must
 * not call back into the strategy from inside {@link #deploy}; it reports task events later.
 */
@FunctionalInterface
public interface RegionDeployer {
    /** Deploys every task of region {@code region}. */
    void deploy(int region);
}
