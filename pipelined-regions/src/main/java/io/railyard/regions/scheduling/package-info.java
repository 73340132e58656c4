/**
 * Region scheduling: {@code RegionInputs} says which consumed partition groups gate which regions;
 * {@code RegionSchedulingStrategy} counts them down on task events and hands every region that
 * becomes schedulable to a {@code RegionDeployer}, lowest topological rank first.
 *
 * <p>Threading: {@code RegionInputs} is immutable and thread-safe; the strategy is single-threaded,
 * confined to the JobManager's main thread that created it (asserted on every call).
 */
@NullMarked
package io.railyard.regions.scheduling;

import org.jspecify.annotations.NullMarked;
