/**
 * Task deployment descriptors: {@code DeploymentDescriptors} encodes each consumed partition
 * group's shuffle descriptors once ({@code GroupDescriptors}), caches them and offloads large ones
 * to a content-addressed {@code BlobStore}; workers decode them through a {@code
 * WorkerDescriptorCache}.
 *
 * <p>Threading: {@code DeploymentDescriptors} is single-threaded (the JobManager's main thread);
 * blob stores and the worker cache are thread-safe; encoded descriptors are immutable.
 */
@NullMarked
package io.railyard.deployment;

import org.jspecify.annotations.NullMarked;
