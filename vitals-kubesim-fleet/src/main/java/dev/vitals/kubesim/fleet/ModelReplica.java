package dev.vitals.kubesim.fleet;

import dev.vitals.kubesim.model.Kubelet;
import dev.vitals.kubesim.model.ProbeExecutor;
import dev.vitals.kubesim.model.ProbeOutcome;
import dev.vitals.kubesim.model.ProbeResult;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.model.SimTime;
import dev.vitals.kubesim.runtime.ScriptedContainer;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * One pod of the model engine: its process is a {@link ScriptedContainer} (starting for the
 * replica's {@code startTime}, draining for its {@code stopTime} after SIGTERM), its application a
 * {@link WorkerPool} that opens, drains and closes with the process, and its probes are answered
 * from the pool's state (DESIGN.md 7.3, "Probes"). The kubelet model drives both through its ports.
 * Engine thread only.
 */
final class ModelReplica implements ProbeExecutor, ScriptedContainer.Listener {
    private static final ProbeOutcome QUEUE_FULL = ProbeOutcome.of(ProbeResult.FAILURE, "queue full", Duration.ofMillis(1));
    private static final ProbeOutcome REFUSED = ProbeOutcome.of(ProbeResult.FAILURE, "connection refused", Duration.ofMillis(1));

    final int index;
    final int version; // 0: the old ReplicaSet (or no rollout), 1: the new one
    final ScriptedContainer container;
    WorkerPool pool; // set once, by the engine (the pools are created together: they sit close in memory)
    private final ModelFleet fleet;
    private final FleetSpec spec;
    private final SimTime time;
    Kubelet kubelet; // null until the pod exists
    boolean deleted;
    boolean kubeletReady;
    double readyAt;
    double upSince;
    double routine; // a warm-up routine's requests, fractional

    ModelReplica(ModelFleet fleet, FleetSpec spec, SimTime time, int index, int version) {
        this.fleet = fleet;
        this.spec = spec;
        this.time = time;
        this.index = index;
        this.version = version;
        Duration startTime = version == 1 ? spec.rollout().orElseThrow().startTime() : spec.replica().startTime();
        container = new ScriptedContainer(time).startTime(startTime).listener(this);
        if (spec.replica().stopTime().isZero()) {
            container.exitOnTerm();
        } else {
            container.exitAfterTerm(spec.replica().stopTime());
        }
    }

    /** @return the process's number (1, 2, … per start): a kept connection belongs to one process */
    int epoch() {
        return container.instances();
    }

    /** The process moved: the server opens when it answers, drains on SIGTERM, closes when it exits. */
    @Override
    public void moved(int instance, ScriptedContainer.Phase phase, int exitCode) {
        fleet.moved(index, epoch()); // a start moves the process first: the engine's copy of the epoch stays current
        switch (phase) {
            case RUNNING -> {
                pool.move(WorkerPool.Server.OPEN);
                upSince = fleet.now();
            }
            case STOPPING -> {
                pool.move(WorkerPool.Server.DRAINING);
                fleet.dropConnections(index);
            }
            case EXITED -> {
                fleet.dropConnections(index);
                pool.close();
            }
            case STARTING -> {
                // refused until it answers: the pool stays closed
            }
        }
    }

    /** @return the service-time factor now: the rollout's new version's, or the replica's cold JIT (1 when warm) */
    double warmup() {
        if (version == 1) {
            return spec.rollout().orElseThrow().factor(fleet.now() - upSince, fleet.served(index) + (long) routine);
        }
        FleetSpec.Replica m = spec.replica();
        if (m.warmupFactor() <= 1 || m.warmupTime().isZero()) {
            return 1;
        }
        double since = (fleet.now() - upSince) / (m.warmupTime().toNanos() / 1e9);
        return since >= 1 ? 1 : 1 + (m.warmupFactor() - 1) * (1 - since);
    }

    @Override
    public void execute(ProbeSpec probe, int inst, Consumer<ProbeOutcome> done) {
        ProbeOutcome o = answer(probe, inst);
        time.schedule(o.latency().toNanos(), () -> done.accept(o));
    }

    private ProbeOutcome answer(ProbeSpec probe, int inst) {
        if (!container.running(inst)) {
            return REFUSED;
        }
        double timeout = probe.timeoutSeconds();
        double latency = spec.replica().probeServiceTime().toNanos() / 1e9;
        if (spec.probes().server() == FleetSpec.ProbeServer.APP_POOL) {
            if (pool.full()) {
                return QUEUE_FULL; // the accept queue is full: the probe's connection is refused too
            }
            latency += pool.poolWait(fleet.now());
        }
        FleetSpec.DependencyRole role = spec.probes().dependencyRole(probe.type());
        boolean failing = false;
        if (role == FleetSpec.DependencyRole.CRITICAL && fleet.dependencyDown()) {
            failing = true;
            latency += spec.dependency().get().checkTime().toNanos() / 1e9;
        }
        if (latency >= timeout) {
            return ProbeOutcome.of(ProbeResult.FAILURE, "timeout", probe.timeout());
        }
        Duration l = Duration.ofNanos(Math.max(1000, Math.round(latency * 1e9)));
        if (probe.type() == ProbeType.READINESS && version == 1 && spec.rollout().orElseThrow().readinessWaitsForWarmup() && warmup() > 1) {
            return ProbeOutcome.of(ProbeResult.FAILURE, "HTTP 503 warming up", l); // vitals-core Warmup: DOWN
        }
        return failing ? ProbeOutcome.of(ProbeResult.FAILURE, "HTTP 503", l) : ProbeOutcome.of(ProbeResult.SUCCESS, "HTTP 200", l);
    }
}
