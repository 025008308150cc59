package dev.vitals.kubesim.model;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

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

    /**
     * The allowed moves, docs/DESIGN.md §7.1a as data: {@link Kubelet} changes its state only
     * through a method that checks this table. STARTING → RUNNING covers a start failure too (the
     * instance exits at once, R42); TERMINATING → STARTING goes through BACK_OFF (R50 decides
     * there whether the wait is zero).
     */
    private static final Map<ContainerState, Set<ContainerState>> MOVES = moves();

    private static Map<ContainerState, Set<ContainerState>> moves() {
        Map<ContainerState, Set<ContainerState>> m = new EnumMap<>(ContainerState.class);
        m.put(WAITING, EnumSet.of(STARTING, EXITED)); // R14; R53 deleted before it ran
        m.put(STARTING, EnumSet.of(RUNNING)); // R45 (spawned; after postStart, R69)
        m.put(RUNNING, EnumSet.of(TERMINATING, BACK_OFF, EXITED)); // R41, R53; exited by itself R20, R42
        m.put(TERMINATING, EnumSet.of(BACK_OFF, EXITED)); // R42, R50; R53
        m.put(BACK_OFF, EnumSet.of(STARTING, EXITED)); // R48; R53
        m.put(EXITED, EnumSet.noneOf(ContainerState.class)); // terminal (R20)
        return Collections.unmodifiableMap(m);
    }

    /** @return true while an instance exists for the kubelet (running or being terminated) */
    public boolean running() {
        return this == RUNNING || this == TERMINATING;
    }

    /**
     * @param next a state
     * @return whether the model may move from this state to {@code next} (§7.1a)
     */
    boolean canMoveTo(ContainerState next) {
        return MOVES.get(this).contains(next);
    }
}
