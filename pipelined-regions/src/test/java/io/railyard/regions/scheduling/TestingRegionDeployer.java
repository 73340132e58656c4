package io.railyard.regions.scheduling;

import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.function.IntConsumer;

/**
 * A {@link RegionDeployer} that records the regions it is asked to deploy, in order, and optionally
 * reacts to each one. Shared with the modules above through this module's test-jar. Not
 * thread-safe.
 */
public final class TestingRegionDeployer implements RegionDeployer {
    private final IntArrayList deployed = new IntArrayList();
    private IntConsumer onDeploy = region -> {};

    /** A deployer that has deployed nothing and does nothing else. */
    public TestingRegionDeployer() {}

    @Override
    public void deploy(int region) {
        deployed.add(region);
        onDeploy.accept(region);
    }

    /** Runs {@code action} for every region deployed from now on. */
    public void setOnDeploy(IntConsumer action) {
        this.onDeploy = action;
    }

    /** The regions deployed since the last call, in order. */
    public int[] takeDeployed() {
        int[] out = deployed.toIntArray();
        deployed.clear();
        return out;
    }
}
