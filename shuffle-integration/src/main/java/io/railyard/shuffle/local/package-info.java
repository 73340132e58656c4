/**
 * The local execution engine: workers with slots and shuffle layers in one process, driven by the
 * JobManager core ({@link io.railyard.shuffle.master.JobMaster}), running tasks written against a
 * small operator API over byte records ({@link io.railyard.shuffle.local.TaskCode}).
 */
@NullMarked
package io.railyard.shuffle.local;

import org.jspecify.annotations.NullMarked;
