package io.railyard.failover;

import static org.assertj.core.api.Assertions.assertThat;

/** Test shorthands: a failure handling of the expected shape, or an assertion failure naming it. */
public final class FailureHandlings {
    private FailureHandlings() {}

    /** {@code handling} as a RESTART decision; fails the test if it is another shape. */
    public static FailureHandling.Restart restart(FailureHandling handling) {
        assertThat(handling).isInstanceOf(FailureHandling.Restart.class);
        return (FailureHandling.Restart) handling;
    }

    /** {@code handling} as a FAIL_JOB decision; fails the test if it is another shape. */
    public static FailureHandling.FailJob failJob(FailureHandling handling) {
        assertThat(handling).isInstanceOf(FailureHandling.FailJob.class);
        return (FailureHandling.FailJob) handling;
    }
}
