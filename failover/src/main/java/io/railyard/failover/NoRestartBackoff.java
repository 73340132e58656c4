package io.railyard.failover;

/** The policy that never restarts: every failure fails the job. Stateless; one shared instance. */
enum NoRestartBackoff implements RestartBackoffPolicy {
    INSTANCE;

    private static final RestartDecision REFUSAL =
            RestartDecision.noRestart(
                    "the restart back-off policy is \"no restart\"; configure a fixed-delay,"
                            + " exponential-delay or failure-rate policy to restart failed jobs");

    @Override
    public RestartDecision onFailure() {
        return REFUSAL;
    }

    @Override
    public String toString() {
        return "NoRestartBackoff";
    }
}
