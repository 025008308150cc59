package dev.vitals.kubesim.model;

/**
 * Where one container is in its life, as the kubelet model sees it. The transitions are
 * listed in docs/DESIGN.md section 7 (state, event, next state, rule) and implemented by
 * {@link Kubelet}'s single transition method.
 */
enum ContainerState {
    /** The pod's workers exist but the first instance has not been asked for yet (R14). */
    WAITING,
    /** The runtime is creating an instance; the kubelet has no container ID for it yet. */
    STARTING,
    /** An instance runs; probes evaluate it (R16, R30). */
    RUNNING,
    /**
     * The kubelet sent the stop signal (a liveness or startup kill, R41–R44, or pod deletion,
     * R53) and waits for the instance to exit; SIGKILL follows after the grace period.
     */
    TERMINATING,
    /**
     * The instance exited and will be restarted: immediately or after the CrashLoopBackOff
     * wait (R47–R50).
     */
    BACK_OFF,
    /** The instance exited and will not be restarted (R20, R42, R53): terminal. */
    EXITED;

    /** @return true while an instance exists for the kubelet (running or being terminated) */
    public boolean running() {
        return this == RUNNING || this == TERMINATING;
    }
}
