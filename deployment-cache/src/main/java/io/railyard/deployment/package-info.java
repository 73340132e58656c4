/**
 * Task deployment descriptors: {@code DeploymentDescriptors} encodes each consumed partition
 * group's shuffle descriptors once ({@code GroupDescriptors}), caches them and offloads large ones
 * to a content-addressed {@code BlobStore}; workers decode them through a {@code
 * WorkerDescriptorCache}. {@code DeploymentSlices} deploys many tasks in slices bounded by a {@code
 * SliceBudget}, so the main thread serves other events in between.
 *
 * <p>Threading: {@code DeploymentDescriptors} is and {@code DeploymentSlices} are single-threaded
 * (the JobManager's main thread); blob stores and the worker cache are thread-safe; encoded
 * descriptors are immutable.
 */
@NullMarked
package io.railyard.deployment;

import org.jspecify.annotations.NullMarked;
