package io.railyard.jobmaster;

/**
 * The one thread a JobManager component is confined to — the thread that built it — and whether it
 * is inside one of its own callbacks, where it must not be entered again. {@link #enter} checks
 * both at every entry point: a call from another thread, or from inside a callback, fails at once
 * with the two thread names instead of corrupting single-threaded state later.
 *
 * <p>Keeps the owner's id and name, not the {@link Thread} (a finished thread is not retained).
 * {@link #enter} and {@link #check} cost one {@code Thread.currentThread()} and a compare; no
 * allocation unless they fail.
 */
final class MainThread {
    private final String component;
    private final long ownerId;
    private final String ownerName;
    private boolean inCallback;

    /** Confines {@code component} (named in errors) to the calling thread. */
    MainThread(String component) {
        this.component = component;
        this.ownerId = Thread.currentThread().getId();
        this.ownerName = Thread.currentThread().getName();
    }

    /**
     * Checks an entry point that may change state: on the owner thread and not from inside a
     * callback.
     *
     * @throws IllegalStateException naming the owner and the calling thread, or the callback
     */
    void enter() {
        check();
        if (inCallback) {
            throw new IllegalStateException(
                    "the "
                            + component
                            + " was called back from inside one of its own callbacks; queue the"
                            + " call and make it after the callback returns");
        }
    }

    /**
     * Checks a read-only entry point: on the owner thread.
     *
     * @throws IllegalStateException naming the owner and the calling thread
     */
    void check() {
        if (Thread.currentThread().getId() != ownerId) {
            throw new IllegalStateException(
                    "the "
                            + component
                            + " is confined to its main thread '"
                            + ownerName
                            + "' and was called from '"
                            + Thread.currentThread().getName()
                            + "'; hand the call to the main thread's executor");
        }
    }

    /** Marks the start ({@code true}) or the end ({@code false}) of a callback. */
    void inCallback(boolean inside) {
        inCallback = inside;
    }
}
