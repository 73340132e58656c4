package io.railyard.regions.scheduling;

import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.function.IntConsumer;

/** Records the regions it is asked to deploy, in order, and optionally reacts to each one. */
final class TestingRegionDeployer implements RegionDeployer {
    private final IntArrayList deployed = new IntArrayList();
    private IntConsumer onDeploy = region -> {};

    @Override
    public void deploy(int region) {
        deployed.add(region);
        onDeploy.accept(region);
    }

    /** Runs {@code action} for every region deployed from now on. */
    void setOnDeploy(IntConsumer action) {
        this.onDeploy = action;
    }

    /** The regions deployed since the last call, in order. */
    int[] takeDeployed() {
        int[] out = deployed.toIntArray();
        deployed.clear();
        return out;
    }
}
