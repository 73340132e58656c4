package io.railyard.topology;

/**
 * The type of the partitions of a dataset: how consumers may read them, whether they survive a
 * failure, and who releases them.
 *
 * <p>Every property that scheduling, failover and release decide on is an explicit method here, so
 * that no module has to switch over the constants. The values follow Apache Flink's {@code
 * ResultPartitionType} of the same names:
 *
 * <table>
 *   <caption>Properties per type</caption>
 *   <tr><th>type</th><th>consuming</th><th>re-consumable</th><th>released by</th>
 *       <th>bounded</th></tr>
 *   <tr><td>PIPELINED</td><td>must be pipelined</td><td>no</td><td>upstream</td><td>no</td></tr>
 *   <tr><td>PIPELINED_BOUNDED</td><td>must be pipelined</td><td>no</td><td>upstream</td>
 *       <td>yes</td></tr>
 *   <tr><td>BLOCKING</td><td>blocking</td><td>yes</td><td>scheduler</td><td>no</td></tr>
 *   <tr><td>HYBRID_FULL</td><td>can be pipelined</td><td>yes</td><td>scheduler</td>
 *       <td>yes</td></tr>
 *   <tr><td>HYBRID_SELECTIVE</td><td>can be pipelined</td><td>no</td><td>scheduler</td>
 *       <td>yes</td></tr>
 * </table>
 */
public enum ResultPartitionType {
    /** Streamed to consumers that run at the same time; unbounded in-flight data. */
    PIPELINED(ConsumingConstraint.MUST_BE_PIPELINED, false, ReleasedBy.UPSTREAM, false),

    /** Like {@link #PIPELINED}, with a bounded number of in-flight buffers (back pressure). */
    PIPELINED_BOUNDED(ConsumingConstraint.MUST_BE_PIPELINED, false, ReleasedBy.UPSTREAM, true),

    /** Fully produced before any consumer starts; can be read again after a failure. */
    BLOCKING(ConsumingConstraint.BLOCKING, true, ReleasedBy.SCHEDULER, false),

    /**
     * Consumers may start once producers are scheduled; all data is spilled so it can be read again
     * after a failure.
     */
    HYBRID_FULL(ConsumingConstraint.CAN_BE_PIPELINED, true, ReleasedBy.SCHEDULER, true),

    /**
     * Consumers may start once producers are scheduled; data is spilled only under memory pressure,
     * so it cannot be read again after a failure.
     */
    HYBRID_SELECTIVE(ConsumingConstraint.CAN_BE_PIPELINED, false, ReleasedBy.SCHEDULER, true);

    /** When a consumer may start reading, relative to its producer. */
    public enum ConsumingConstraint {
        /** The consumer must run while the producer runs (same pipelined region). */
        MUST_BE_PIPELINED,
        /** The consumer may run while the producer runs, or later. */
        CAN_BE_PIPELINED,
        /** The consumer may start only after the partition is finished. */
        BLOCKING
    }

    /** Which component releases a partition of this type. */
    public enum ReleasedBy {
        /** Released by the producer once its consumers have read it. */
        UPSTREAM,
        /** Released by the scheduler once every consumer region has finished. */
        SCHEDULER
    }

    private final ConsumingConstraint consumingConstraint;
    private final boolean reconsumable;
    private final ReleasedBy releasedBy;
    private final boolean bounded;

    ResultPartitionType(
            ConsumingConstraint consumingConstraint,
            boolean reconsumable,
            ReleasedBy releasedBy,
            boolean bounded) {
        this.consumingConstraint = consumingConstraint;
        this.reconsumable = reconsumable;
        this.releasedBy = releasedBy;
        this.bounded = bounded;
    }

    /** When a consumer may start reading, relative to its producer. */
    public ConsumingConstraint consumingConstraint() {
        return consumingConstraint;
    }

    /**
     * Whether producer and consumer must run at the same time; such edges join their tasks into one
     * pipelined region.
     */
    public boolean mustBePipelinedConsumed() {
        return consumingConstraint == ConsumingConstraint.MUST_BE_PIPELINED;
    }

    /** Whether a consumer may read while the producer still runs (pipelined or hybrid types). */
    public boolean canBePipelinedConsumed() {
        return consumingConstraint != ConsumingConstraint.BLOCKING;
    }

    /** Whether a consumer may start only after the whole partition is finished. */
    public boolean isBlocking() {
        return consumingConstraint == ConsumingConstraint.BLOCKING;
    }

    /** Whether this is one of the hybrid types. */
    public boolean isHybrid() {
        return this == HYBRID_FULL || this == HYBRID_SELECTIVE;
    }

    /**
     * Whether a finished partition can be read again by a restarted consumer, so that a consumer
     * failure does not force its producer to run again.
     */
    public boolean isReconsumable() {
        return reconsumable;
    }

    /** Which component releases partitions of this type. */
    public ReleasedBy releasedBy() {
        return releasedBy;
    }

    /** Whether the scheduler releases partitions of this type (after all consumers finished). */
    public boolean isReleasedByScheduler() {
        return releasedBy == ReleasedBy.SCHEDULER;
    }

    /** Whether the number of in-flight buffers of a partition of this type is bounded. */
    public boolean isBounded() {
        return bounded;
    }
}
