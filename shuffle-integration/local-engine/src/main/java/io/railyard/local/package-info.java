/**
 * The local execution engine: workers with slots and shuffle layers in one process, driven by the
 * JobManager core ({@link io.railyard.jobmaster.JobMaster}), running tasks written against a small
 * operator API over byte records ({@link io.railyard.worker.TaskCode}).
 */
@NullMarked
package io.railyard.local;

import org.jspecify.annotations.NullMarked;
