/**
 * Pipelined regions: {@code PipelinedRegions.build} partitions the tasks into regions with
 * topological ids (blocks of logical regions, blocking cycles merged by Tarjan), and a {@code
 * TaskRangeCursor} lists a region's tasks as ranges; scheduling is in {@code .scheduling}.
 *
 * <p>Threading: {@code PipelinedRegions} is immutable and thread-safe; a cursor belongs to one
 * thread.
 */
@NullMarked
package io.railyard.regions;

import org.jspecify.annotations.NullMarked;
