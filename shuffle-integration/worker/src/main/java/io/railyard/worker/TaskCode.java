package io.railyard.worker;

/**
 * What one task attempt does, as a cooperative task: {@link #run} is called on one of its worker's
 * few task threads whenever the task can go on, does as much as it can without waiting, and returns
 * {@link Step#YIELD} to be called again later or {@link Step#done} with what the attempt commits. A
 * task never waits inside {@code run} for another task (for input, for room in its outputs): it
 * returns {@link Step#YIELD}, and the worker calls it again once what it lacked has come — so a
 * worker runs thousands of tasks on as many threads as it has cores. Code that blocks anyway holds
 * its thread for as long (the worker's other tasks share the rest).
 *
 * <p>The code object is made per attempt ({@link Factory#create}), so it keeps its progress in its
 * own fields from one call to the next. The result counts only if the attempt finishes and is still
 * current then: a restarted attempt's partial output never counts.
 */
@FunctionalInterface
public interface TaskCode {
    /**
     * Runs the task as far as it can go now: until it has to wait (no input is ready, {@link
     * TaskContext#canContinue()} says no) or it is done.
     *
     * @return {@link Step#YIELD} to be called again once the task can go on (the input or room it
     *     lacked has come, or at once if it lacked neither), or {@link Step#done} when it finished
     * @throws Exception any failure: the task fails and failover decides what restarts
     */
    Step run(TaskContext context) throws Exception;

    /** What a call of {@link TaskCode#run} returns: the task goes on later, or it is done. */
    sealed interface Step permits Step.Yield, Step.Done {
        /** Call again once the task can go on. */
        Step YIELD = new Yield();

        /** The task finished and commits {@code tally} (for a sink, the records it received). */
        static Step done(Tally tally) {
            return new Done(tally);
        }

        /** The task goes on later; the one instance is {@link #YIELD}. */
        final class Yield implements Step {
            private Yield() {}

            @Override
            public String toString() {
                return "YIELD";
            }
        }

        /**
         * The task finished.
         *
         * @param tally what it commits
         */
        record Done(Tally tally) implements Step {}
    }

    /** Chooses the code of each task attempt. */
    @FunctionalInterface
    interface Factory {
        /**
         * The code of attempt {@code attempt} of subtask {@code subtask} of vertex {@code vertex}.
         */
        TaskCode create(int vertex, int subtask, int attempt);
    }
}
