package io.railyard.local;

import io.railyard.worker.Tally;
import io.railyard.worker.TaskCode;
import io.railyard.worker.TaskContext;

/**
 * Tests' wrappers of cooperative task code ({@link TaskCode} runs in steps): something to do at an
 * attempt's first step, or once its code is done.
 */
final class Steps {
    private Steps() {}

    /** What a test does at an attempt's first step (it may block or throw). */
    @FunctionalInterface
    interface First {
        void run(TaskContext context) throws Exception;
    }

    /** What a test does with an attempt's tally once its code is done (it may throw). */
    @FunctionalInterface
    interface Done {
        Tally run(Tally tally) throws Exception;
    }

    /** {@code code}, with {@code first} run at its first step, before the code's own. */
    static TaskCode first(First first, TaskCode code) {
        boolean[] started = {false};
        return context -> {
            if (!started[0]) {
                started[0] = true;
                first.run(context);
            }
            return code.run(context);
        };
    }

    /** {@code code}, whose tally goes through {@code done} once it is done. */
    static TaskCode whenDone(TaskCode code, Done done) {
        return context -> {
            TaskCode.Step step = code.run(context);
            return step instanceof TaskCode.Step.Done end
                    ? TaskCode.Step.done(done.run(end.tally()))
                    : step;
        };
    }

    /** {@code code} with every step's context replaced by {@code context}'s wrapping of it. */
    static TaskCode withContext(TaskCode code, java.util.function.UnaryOperator<TaskContext> wrap) {
        return context -> code.run(wrap.apply(context));
    }
}
