/**
 * The compact execution topology: {@code ExecutionTopology} expands every job edge into consumer
 * groups (a consumed partition group with its consumer vertex group), computed from one record per
 * edge, never stored per task-level connection.
 *
 * <p>Threading: immutable after {@code ExecutionTopology.of} and thread-safe.
 */
@NullMarked
package io.railyard.groups;

import org.jspecify.annotations.NullMarked;
