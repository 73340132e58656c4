package io.railyard.shuffle.buffer;

import static org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt.forClasses;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Options;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Lincheck checks that {@link NetworkBufferPool} is linearizable: every concurrent history of its
 * public operations returns what some sequential order of the same calls, consistent with their
 * real-time order, returns in {@link PoolSpecification} — the documented rules as plain counters,
 * those of {@link NetworkBufferPoolModelTest}'s model. Reliability catalogue: invariant 4 (no page
 * lost or held twice: {@link PoolOperations#validate} checks the pool's accounting and the pages
 * each owner holds after every scenario), invariant 5 (liveness: Lincheck fails an operation that
 * never returns, so a served request must complete), row 25 (a guarantee the budget cannot pledge
 * fails at once, never waits) and row 32 (a withdrawn waiting request leaves nothing reserved —
 * here withdrawn by its owner's close; the interrupt itself is {@link
 * NetworkBufferPoolInterruptTest}'s). Lincheck is the tool the catalogue names for the buffer
 * manager: the model test checks the rules over long single-threaded runs, this test that they hold
 * when owners call at once.
 *
 * <p>{@link PoolOperations}: three pages; {@code A} (guarantee 0, a pure borrower) and {@code B}
 * (guarantee 1) are registered throughout, {@code C} comes and goes; {@code A} and {@code C} have a
 * revocation listener, {@code B} has none. Operations (slot 0-2 for A-C, pages 1-2, guarantee 0-3):
 *
 * <ul>
 *   <li>{@code register(guarantee)}: {@link NetworkBufferPool#register} of {@code C}; insufficient
 *       network memory when the pledges would pass the budget, asks to borrowers when it pledges
 *       pages that are lent out.
 *   <li>{@code tryRequest(slot, pages)}: {@link BufferOwner#tryRequest()} for one page, {@link
 *       BufferOwner#tryRequest(int, List)} for two — non-blocking, borrowing beyond the guarantee
 *       only pages nobody is promised.
 *   <li>{@code request(slot, pages)}: {@link BufferOwner#request(int)} within the guarantee. The
 *       blocking {@link BufferOwner#requestBlocking} is not an operation: a wait for a recycle that
 *       no other thread will make never ends, which no sequential specification can describe. The
 *       future stands for it: the operation returns at once, and the owner's later operations
 *       collect the pages once the pool has granted them. Whether it was served at once or waited
 *       is not its result (a concurrent recycle may complete it before the caller looks); it shows
 *       in what follows — refusals, asks, what is held and given back.
 *   <li>{@code recycle(slot)}: {@link BufferOwner#recycle} of one held page.
 *   <li>{@code revoke(slot)}: the owner answers a revocation as a listener would, recycling one
 *       page it holds beyond its guarantee. The pool's side of revocation — which borrowers it asks
 *       for how many pages, and when — is in every result: the asks that call made, e.g. {@code
 *       registered[A:1]}.
 *   <li>{@code close()}: {@link BufferOwner#close} of {@code C}, refused while it holds pages; its
 *       waiting requests are cancelled and the queue is served.
 *   <li>{@code closePool()} ({@link PoolOperations.WithPoolClose} only, at most once a scenario):
 *       {@link NetworkBufferPool#close}; its result names the owners that still hold pages.
 * </ul>
 *
 * <p>An owner's own calls are serialized by the test, as a real owner's thread serializes them; the
 * concurrency checked is between owners (two registrations never race: only {@code C} registers).
 * Model checking explores interleavings at the pool's shared accesses and its lock (the JDK's
 * lists, {@code ThreadLocal} and Guava's checks count as atomic: the pool touches its lists only
 * under its lock, and it halves the run time); stress runs scenarios on real threads. Both add
 * three fixed scenarios (see {@link #withProtocolScenarios}) to their random ones, which at this
 * size rarely build a shortfall. Sizes fit CI's budget (about 30 s of the two cores for the class).
 * Seeded mutations each failed all three tests: a grant that ignores {@code unused}, a pool that
 * never asks borrowers back, {@code tryRequest()} and {@code recycle} without the lock.
 */
class NetworkBufferPoolLincheckTest {
    /** Closes the pools Lincheck built (the leak detector counts pools not closed). */
    @AfterEach
    void closePools() {
        PoolOperations.closeAll();
    }

    @Test
    void modelChecking_poolOperations_areLinearizable() {
        withProtocolScenarios(new ModelCheckingOptions())
                .addGuarantee(
                        forClasses(
                                        "java.util.ArrayList",
                                        "java.util.ArrayDeque",
                                        "java.lang.ThreadLocal",
                                        "com.google.common.base.Preconditions")
                                .allMethods()
                                .treatAsAtomic())
                .iterations(15)
                .invocationsPerIteration(100)
                .threads(2)
                .actorsPerThread(3)
                .actorsBefore(3)
                .actorsAfter(2)
                .sequentialSpecification(PoolSpecification.class)
                .check(PoolOperations.class);
    }

    @Test
    void stress_poolOperations_areLinearizable() {
        stress(100).check(PoolOperations.class);
    }

    @Test
    void stress_withPoolClose_isLinearizable() {
        stress(30).check(PoolOperations.WithPoolClose.class);
    }

    private static StressOptions stress(int scenarios) {
        return withProtocolScenarios(new StressOptions())
                .iterations(scenarios)
                .invocationsPerIteration(100)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(3)
                .actorsAfter(2)
                .sequentialSpecification(PoolSpecification.class);
    }

    /**
     * Adds the scenarios the random ones may miss at this size: a registration that pledges lent
     * pages (asks), a request that waits for them and the revocation that serves it; two owners
     * taking the last unpromised pages at once; a borrower racing a pledge.
     */
    private static <O extends Options<O, ?>> O withProtocolScenarios(O options) {
        return options.addCustomScenario(
                        scenario(
                                List.of(actor("tryRequest", 0, 2)),
                                List.of(
                                        List.of(
                                                actor("register", 1),
                                                actor("request", 2, 1),
                                                actor("recycle", 2)),
                                        List.of(actor("request", 1, 1), actor("revoke", 0))),
                                List.of(actor("recycle", 1), actor("tryRequest", 0, 1))))
                .addCustomScenario(
                        scenario(
                                List.of(),
                                List.of(
                                        List.of(
                                                actor("tryRequest", 0, 1),
                                                actor("tryRequest", 0, 2)),
                                        List.of(actor("request", 1, 1), actor("register", 2))),
                                List.of(actor("tryRequest", 0, 1), actor("close"))))
                .addCustomScenario(
                        scenario(
                                List.of(actor("register", 0)),
                                List.of(
                                        List.of(actor("tryRequest", 0, 1), actor("recycle", 0)),
                                        List.of(
                                                actor("tryRequest", 2, 1),
                                                actor("tryRequest", 1, 2))),
                                List.of(actor("revoke", 2))));
    }

    private static ExecutionScenario scenario(
            List<Actor> initial, List<List<Actor>> parallel, List<Actor> post) {
        return new ExecutionScenario(initial, parallel, post, actor("validate"));
    }

    private static Actor actor(String operation, Object... arguments) {
        Method method =
                Arrays.stream(PoolOperations.class.getMethods())
                        .filter(m -> m.getName().equals(operation))
                        .findFirst()
                        .orElseThrow();
        return new Actor(method, List.of(arguments));
    }
}
