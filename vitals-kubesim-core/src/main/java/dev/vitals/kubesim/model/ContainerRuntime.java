package dev.vitals.kubesim.model;

import java.util.function.IntConsumer;

/**
 * Starts instances of "the container". The real implementation ({@code runtime.ProcessRuntime}) runs
 * a local command; tests use scripted fakes. Implementations must be thread-safe.
 */
public interface ContainerRuntime {

    /**
     * Starts a new instance.
     *
     * @param instance 1 for the first instance, then 2, 3, …
     * @param onExit called once, from any thread, with the exit code when the instance stops
     * @return the running instance
     * @throws IllegalStateException when it cannot be started (the kubelet treats that as an
     *         immediate exit with code 128, like a runtime StartError)
     */
    Instance start(int instance, IntConsumer onExit);

    /** One running instance. */
    interface Instance {
        /** @return a description for the timeline, e.g. {@code pid 4242} */
        String describe();

        /** Sends the stop signal (SIGTERM; R44 step 2). */
        void terminate();

        /** Sends SIGKILL to the instance and its descendants (R44 step 3). */
        void kill();

        /** SIGSTOP: a full stall. */
        void pause();

        /** SIGCONT. */
        void resume();

        /**
         * Sends a named signal.
         *
         * @param name e.g. {@code TERM}, {@code HUP}, {@code USR1}
         * @throws IllegalArgumentException when the name is not a signal name
         */
        void signal(String name);

        /**
         * @return the container status reason of an exited instance when the runtime knows one
         *         beyond its exit code, e.g. {@code OOMKilled}; empty while it runs
         */
        default java.util.Optional<String> exitReason() {
            return java.util.Optional.empty();
        }

        /**
         * Ends the instance at the end of a simulation: SIGTERM, then SIGKILL when it has not
         * exited within {@code grace}. Blocks at most about {@code grace}.
         *
         * @param grace how long to wait after SIGTERM
         */
        default void shutdown(java.time.Duration grace) {
            terminate();
            kill();
        }
    }
}
