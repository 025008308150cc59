package dev.vitals.kubesim.model;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The kubelet model for a pod of several containers: init containers, sidecars (restartable
 * init containers) and regular containers, each run by its own {@link Kubelet} state machine.
 * <ul>
 *   <li>Probe workers for every probed container exist from the first sync (R14;
 *       {@code prober_manager.go} AddPod covers regular containers and sidecars); init
 *       containers have none (R12).</li>
 *   <li>Init containers start one after another, in order: an init container must exit 0
 *       before the next starts; a sidecar must be <em>started</em> (running, and its startup
 *       probe succeeded if it has one, R31) before the next starts
 *       ({@code kuberuntime_manager.go} computeInitContainerActions).</li>
 *   <li>Regular containers start together once every init container is done.</li>
 *   <li>Restarts: a sidecar is always restarted; an init container is restarted after a
 *       failure unless the pod's policy is Never, and never after exit 0; regular containers
 *       follow the pod's policy (R42, {@code ContainerShouldRestart}).</li>
 *   <li>Ready (R37): every regular container and every sidecar is ready
 *       ({@code status/generate.go} GenerateContainersReadyCondition includes restartable
 *       init containers).</li>
 *   <li>Termination in order (R70, KEP-753; kuberuntime_container.go killContainersWithSyncResult,
 *       killContainer; kuberuntime_termination_order.go): on deletion (R53) every container is
 *       killed at once — every Killing event and every preStop hook starts then, sidecars'
 *       included; regular and init containers get the stop signal when their hook is over; each
 *       sidecar's stop signal then waits until the regular containers and the sidecars after it
 *       have exited, at most what is left of its grace period, and gets what is left after that,
 *       at least 2 s ({@code gracePeriod -= int64(ordering.waitForTurn(containerName,
 *       gracePeriod))}, minimumGracePeriodInSeconds). Sidecars thus stop in reverse order.</li>
 *   <li>When no regular container runs or will be restarted (a {@code Never} pod, or an
 *       {@code OnFailure} pod whose containers exited 0), the kubelet kills the pod: the
 *       sidecars are stopped in the same order with the pod's grace period, and not restarted
 *       (computePodActions: KillPod).</li>
 * </ul>
 * Container events reach the sink with the container's name in front of their detail;
 * container-level READY/NOT_READY become notes, and this class emits the pod's READY and
 * NOT_READY. Runs on the {@link SimTime} scheduler thread; not thread-safe.
 */
final class PodKubelet {
    /** Where a container sits in the pod. */
    public enum Role {
        /** {@code initContainers[]} without {@code restartPolicy: Always}: runs to completion. */
        INIT,
        /** {@code initContainers[]} with {@code restartPolicy: Always}: a sidecar. */
        SIDECAR,
        /** {@code containers[]}. */
        REGULAR
    }

    /**
     * One container of the pod.
     *
     * @param spec the container (its name, ports, probes, env); the pod-level restart policy
     *        and grace period are taken from it
     * @param role init, sidecar or regular
     * @param runtime starts its instances
     * @param prober evaluates its probes
     */
    public record Member(PodSpec spec, Role role, ContainerRuntime runtime, ProbeExecutor prober) {
        /**
         * Validates the components.
         *
         * @param spec the container (its name, ports, probes, env); the pod-level restart policy and grace
         *        period
         *        are taken from it
         * @param role init, sidecar or regular
         * @param runtime starts its instances
         * @param prober evaluates its probes
         * @throws IllegalArgumentException if a component is outside its documented range
         * @throws NullPointerException if a required component is null
         */
        public Member {
            Objects.requireNonNull(spec, "spec");
            Objects.requireNonNull(role, "role");
            Objects.requireNonNull(runtime, "runtime");
            Objects.requireNonNull(prober, "prober");
            if (role == Role.INIT && (spec.startup().isPresent() || spec.liveness().isPresent()
                    || spec.readiness().isPresent())) {
                throw new IllegalArgumentException("init container " + spec.containerName()
                        + " has probes; the API server rejects that (R12)");
            }
        }
    }

    private final List<Member> members;
    private final List<Kubelet> kubelets = new ArrayList<>();
    private final KubeletOptions opts;
    private final SimTime time;
    private final Consumer<SimEvent> sink;
    private int nextInit;
    private boolean regularsReleased;
    private boolean ready;
    private long t0;

    /**
     * @param members the containers: init containers and sidecars in {@code initContainers[]}
     *        order, then regular containers; at least one regular container
     * @param opts model options
     * @param time the time and scheduler thread
     * @param sink receives every event; must not block
     * @throws IllegalArgumentException when there is no regular container, or an init or
     *         sidecar container comes after a regular one
     */
    public PodKubelet(List<Member> members, KubeletOptions opts, SimTime time, Consumer<SimEvent> sink) {
        this.members = List.copyOf(members);
        this.opts = Objects.requireNonNull(opts, "opts");
        this.time = Objects.requireNonNull(time, "time");
        this.sink = Objects.requireNonNull(sink, "sink");
        boolean regularSeen = false;
        for (Member m : this.members) {
            if (m.role() == Role.REGULAR) {
                regularSeen = true;
            } else if (regularSeen) {
                throw new IllegalArgumentException("init container " + m.spec().containerName()
                        + " comes after a regular container: list initContainers first");
            }
        }
        if (!regularSeen) {
            throw new IllegalArgumentException("a pod needs at least one regular container");
        }
        for (Member m : this.members) {
            String name = m.spec().containerName();
            Kubelet k = new Kubelet(m.spec().with(effectivePolicy(m), m.spec().terminationGracePeriodSeconds()), opts,
                    time, m.runtime(), m.prober(), e -> forward(name, e));
            k.gate();
            k.onChange(this::onChange);
            kubelets.add(k);
        }
    }

    /** R42 per role: sidecars always restart; init containers only after a failure. */
    private static RestartPolicy effectivePolicy(Member m) {
        RestartPolicy pod = m.spec().restartPolicy();
        switch (m.role()) {
            case SIDECAR:
                return RestartPolicy.ALWAYS;
            case INIT:
                return pod == RestartPolicy.NEVER ? RestartPolicy.NEVER : RestartPolicy.ON_FAILURE;
            default:
                return pod;
        }
    }

    private void forward(String container, SimEvent e) {
        SimEvent.Type type = e.type() == SimEvent.Type.READY || e.type() == SimEvent.Type.NOT_READY
                ? SimEvent.Type.ACTION : e.type();
        sink.accept(new SimEvent(e.at(), type, e.instance(), e.probe(), e.result(), e.latency(),
                "[" + container + "] " + e.detail()));
    }

    /** Creates every worker (R14) and starts the first init container, or the regular ones. */
    public void start() {
        t0 = time.monotonicTime();
        for (Kubelet k : kubelets) {
            k.start();
        }
        releaseNext(opts.containerStartDelay());
    }

    /** Ends the simulation for every container. */
    public void stop() {
        for (Kubelet k : kubelets) {
            k.stop();
        }
    }

    /**
     * Deletes the pod (R53): every container is stopped with the grace period and none is
     * restarted.
     *
     * @param grace the deletion grace period, if it overrides the pod's
     */
    public void deletePod(Optional<Duration> grace) {
        terminate(grace.map(Duration::toSeconds).orElse(members.get(members.size() - 1).spec().terminationGracePeriodSeconds()));
    }

    private boolean terminating;

    /**
     * Stops every container as killContainersWithSyncResult does: all at once (one goroutine per
     * container: every Killing event and preStop hook starts now), each sidecar's stop signal
     * waiting for its turn ({@link #giveTurns()}).
     */
    private void terminate(long graceSeconds) {
        if (terminating) {
            return;
        }
        terminating = true;
        for (int i = 0; i < members.size(); i++) {
            kubelets.get(i).deletePod(graceSeconds, members.get(i).role() == Role.SIDECAR);
        }
        giveTurns();
    }

    /**
     * newTerminationOrdering: a sidecar's turn comes when every regular container and the next
     * sidecar after it (in {@code initContainers[]}) have exited, so sidecars stop in reverse order.
     * (Each sidecar waits at most what is left of its grace period: {@link Kubelet}.)
     */
    private void giveTurns() {
        boolean prerequisitesExited = regularsExited();
        for (int i = members.size() - 1; i >= 0 && prerequisitesExited; i--) {
            if (members.get(i).role() == Role.SIDECAR) {
                kubelets.get(i).turnCame();
                prerequisitesExited = kubelets.get(i).state() == ContainerState.EXITED;
            }
        }
    }

    private boolean regularsExited() {
        for (int i = 0; i < members.size(); i++) {
            if (members.get(i).role() == Role.REGULAR && kubelets.get(i).state() != ContainerState.EXITED) {
                return false;
            }
        }
        return true;
    }

    /** @return true when a regular container exists and none runs or will be restarted */
    private boolean regularsCompleted() {
        boolean any = false;
        for (int i = 0; i < members.size(); i++) {
            if (members.get(i).role() == Role.REGULAR) {
                any = true;
                if (kubelets.get(i).state() != ContainerState.EXITED) {
                    return false;
                }
            }
        }
        return any;
    }

    /** @return the pod's Ready condition (R37) */
    public boolean ready() {
        return ready;
    }

    /**
     * @param container a container name
     * @return that container's state machine
     * @throws IllegalArgumentException when there is no such container
     */
    public Kubelet container(String container) {
        for (Kubelet k : kubelets) {
            if (k.spec().containerName().equals(container)) {
                return k;
            }
        }
        throw new IllegalArgumentException("no container named " + container);
    }

    private void releaseNext(Duration delay) {
        while (nextInit < members.size() && members.get(nextInit).role() != Role.REGULAR) {
            Kubelet k = kubelets.get(nextInit);
            if (k.state() == ContainerState.WAITING && !released(nextInit)) {
                markReleased(nextInit);
                k.release(delay);
                return;
            }
            if (!done(nextInit)) {
                return;
            }
            nextInit++;
        }
        if (!regularsReleased) {
            regularsReleased = true;
            for (int i = nextInit; i < members.size(); i++) {
                kubelets.get(i).release(delay);
            }
        }
    }

    private final java.util.Set<Integer> releasedInits = new java.util.HashSet<>();

    private boolean released(int i) {
        return releasedInits.contains(i);
    }

    private void markReleased(int i) {
        releasedInits.add(i);
    }

    /** An init container is done when it exited 0; a sidecar once it is started (R31). */
    private boolean done(int i) {
        Kubelet k = kubelets.get(i);
        if (members.get(i).role() == Role.SIDECAR) {
            return k.started();
        }
        return k.state() == ContainerState.EXITED && k.lastExitCode() == 0;
    }

    private void onChange() {
        if (!regularsReleased) {
            releaseNext(Duration.ZERO);
        }
        if (terminating) {
            giveTurns();
        } else if (regularsReleased && regularsCompleted()) {
            // a Never (or succeeded OnFailure) pod whose regular containers are done: KillPod, sidecars in order
            terminate(members.get(members.size() - 1).spec().terminationGracePeriodSeconds());
        }
        boolean nowReady = regularsReleased;
        for (int i = 0; i < members.size() && nowReady; i++) {
            if (members.get(i).role() != Role.INIT && !kubelets.get(i).ready()) {
                nowReady = false;
            }
        }
        if (nowReady != ready) {
            ready = nowReady;
            sink.accept(new SimEvent(Duration.ofNanos(time.monotonicTime() - t0), ready ? SimEvent.Type.READY : SimEvent.Type.NOT_READY,
                    0, Optional.empty(), Optional.empty(), Optional.empty(),
                    ready ? "Ready condition true (every container and sidecar ready)" : "Ready condition false"));
        }
    }
}
