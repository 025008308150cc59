package dev.vitals.kubesim.fleet;

import java.util.List;
import java.util.Objects;

/**
 * What a fleet run saw: totals, a per-second series, a lane per replica and the expectations'
 * verdicts. Immutable; the same shape for the model and the live engine. Times are seconds from
 * scenario start (the end of warm-up: every replica Ready once); warm-up events have negative times.
 *
 * @param engine {@code model} or {@code live}
 * @param label what ran, e.g. {@code incident naive}
 * @param replicas the fleet size (the Deployment's replicas; a rollout has a lane for each old and new pod)
 * @param durationSeconds scenario seconds after warm-up
 * @param warmupSeconds how long warm-up took (from the first container start to every replica in the endpoints)
 * @param totals the totals
 * @param series one entry per scenario second
 * @param lanes one per replica, index order
 * @param checks the expectations' verdicts, in the order given
 * @param rollout the rolling update's outcome, when the spec had one
 * @param routing how traffic reached the pods ({@link Routing#describe()})
 * @param holds per followed affinity key, which pod held it from when ({@link Hold}), in time order
 */
public record FleetResult(String engine, String label, int replicas, double durationSeconds, double warmupSeconds,
        Totals totals, List<Second> series, List<Lane> lanes, List<Check> checks, java.util.Optional<RolloutStatus> rollout,
        String routing, List<Hold> holds) {

    /**
     * Validates the components and copies the collections (unmodifiable).
     *
     * @param engine {@code model} or {@code live}
     * @param label what ran, e.g. {@code incident naive}
     * @param replicas the fleet size (the Deployment's replicas; a rollout has a lane for each old and new pod)
     * @param durationSeconds scenario seconds after warm-up
     * @param warmupSeconds how long warm-up took (from the first container start to every replica in the
     *        endpoints)
     * @param totals the totals
     * @param series one entry per scenario second
     * @param lanes one per replica, index order
     * @param checks the expectations' verdicts, in the order given
     * @param rollout the rolling update's outcome, when the spec had one
     * @param routing how traffic reached the pods
     * @param holds per followed affinity key, which pod held it from when
     * @throws NullPointerException if a required component is null
     */
    public FleetResult {
        Objects.requireNonNull(routing, "routing");
        holds = List.copyOf(holds);
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(totals, "totals");
        series = List.copyOf(series);
        lanes = List.copyOf(lanes);
        checks = List.copyOf(checks);
        Objects.requireNonNull(rollout, "rollout");
    }

    /** @return true when every expectation holds (also when there are none) */
    public boolean passed() {
        return checks.stream().allMatch(Check::passed);
    }

    /**
     * Fleet totals.
     *
     * @param restarts container restarts over the fleet (warm-up included)
     * @param kills liveness/startup kills over the fleet
     * @param replicasRestarted replicas with at least one restart
     * @param zeroEndpointSeconds scenario seconds with no Ready endpoint in the Service
     * @param minEndpoints the fewest endpoints the Service had after warm-up
     * @param requests client requests that ended (succeeded or failed after all retries)
     * @param failed of those, failed
     * @param attempts attempts sent (retries amplify load: attempts / requests)
     * @param meanLatencyMs mean latency of successful requests (last attempt), ms
     * @param p99LatencyMs their 99th percentile, ms (log-binned, ±10 %)
     * @param crashLoopSeconds replica-seconds spent waiting in CrashLoopBackOff after warm-up, summed over the fleet
     * @param notReadySeconds replica-seconds with the Ready condition false after warm-up, summed over the fleet
     * @param noEndpointRequests attempts refused because the Service had no Ready endpoint
     * @param maxDown the largest number of replicas not Ready at the same moment after warm-up
     * @param podsKilled distinct replicas killed at least once (a hot spot that moves kills many; uniform
     *        overload kills every replica too, but all at once)
     */
    public record Totals(int restarts, int kills, int replicasRestarted, double zeroEndpointSeconds, int minEndpoints,
            long requests, long failed, long attempts, double meanLatencyMs, double p99LatencyMs, double crashLoopSeconds,
            double notReadySeconds, long noEndpointRequests, int maxDown, int podsKilled) {

        /** @return failed requests as a percentage of requests, 0 when there were none */
        public double clientErrorPercent() {
            return requests == 0 ? 0 : 100.0 * failed / requests;
        }
    }

    /**
     * One scenario second.
     *
     * @param t the second's start
     * @param endpoints Ready endpoints in the Service, time-weighted mean over the second
     * @param minEndpoints the fewest during the second
     * @param ready replicas whose kubelet Ready condition is true, mean over the second
     * @param ok requests that succeeded in this second
     * @param failed requests that failed in this second (after all retries)
     * @param attempts attempts sent in this second
     * @param p50Ms median latency of successes in this second, ms (0 when none)
     * @param p99Ms 99th percentile, ms (0 when none)
     */
    public record Second(int t, double endpoints, int minEndpoints, double ready, long ok, long failed, long attempts,
            double p50Ms, double p99Ms) {
    }

    /**
     * One replica's lane.
     *
     * @param replica 0-based index
     * @param restarts its restarts
     * @param kills its kills
     * @param ready intervals [from, to) when its Ready condition was true
     * @param killTimes when the kubelet killed it
     * @param startTimes when a container instance started (the first included)
     * @param crashLoopSeconds seconds after warm-up its restart waited in CrashLoopBackOff
     * @param notReadySeconds seconds after warm-up its Ready condition was false
     * @param version {@code old} or {@code new} in a rollout (its ReplicaSet), else empty
     * @param resources live engine with resource limits: each of its container instances' cgroup
     *        counters at exit (CPU used, periods and time throttled, memory peak), in instance
     *        order; else empty
     * @param peakInFlight the most client and background requests it held at once (waiting and in
     *        service; model engine, 0 live)
     */
    public record Lane(int replica, int restarts, int kills, List<double[]> ready, List<Double> killTimes,
            List<Double> startTimes, double crashLoopSeconds, double notReadySeconds, String version,
            List<dev.vitals.kubesim.runtime.ResourceLimits.InstanceUsage> resources, long peakInFlight) {
        /**
         * Copies the collections (unmodifiable).
         *
         * @param replica 0-based index
         * @param restarts its restarts
         * @param kills its kills
         * @param ready intervals [from, to) when its Ready condition was true
         * @param killTimes when the kubelet killed it
         * @param startTimes when a container instance started (the first included)
         * @param crashLoopSeconds seconds after warm-up its restart waited in CrashLoopBackOff
         * @param notReadySeconds seconds after warm-up its Ready condition was false
         * @param version {@code old} or {@code new} in a rollout (its ReplicaSet), else empty
         * @param resources the cgroup counters of its container instances when limits were applied, else empty
         * @param peakInFlight the most requests it held at once
         */
        public Lane {
            ready = List.copyOf(ready);
            killTimes = List.copyOf(killTimes);
            startTimes = List.copyOf(startTimes);
            resources = List.copyOf(resources);
        }
    }

    /**
     * @param perLane per lane (index order), its instances' cgroup counters; shorter than the lanes
     *        leaves the rest as they are
     * @return a copy whose lanes carry them
     */
    public FleetResult withResources(List<List<dev.vitals.kubesim.runtime.ResourceLimits.InstanceUsage>> perLane) {
        List<Lane> out = new java.util.ArrayList<>(lanes.size());
        for (int i = 0; i < lanes.size(); i++) {
            Lane l = lanes.get(i);
            out.add(i < perLane.size() ? new Lane(l.replica(), l.restarts(), l.kills(), l.ready(), l.killTimes(), l.startTimes(),
                    l.crashLoopSeconds(), l.notReadySeconds(), l.version(), perLane.get(i), l.peakInFlight()) : l);
        }
        return new FleetResult(engine, label, replicas, durationSeconds, warmupSeconds, totals, series, out, checks, rollout, routing,
                holds);
    }

    /**
     * From {@code at} on, an affinity key was held by a pod: the hot spot's path. Recorded when the
     * holder changes, for the first {@value Recorder#KEYS_FOLLOWED} keys of each keyed population.
     *
     * @param clients the population's name
     * @param key the key, 0-based
     * @param at scenario seconds (negative during warm-up)
     * @param replica the pod that holds it
     */
    public record Hold(String clients, int key, double at, int replica) {
        /**
         * Validates the components.
         *
         * @param clients the population's name
         * @param key the key
         * @param at scenario seconds
         * @param replica the pod
         * @throws NullPointerException if {@code clients} is null
         */
        public Hold {
            Objects.requireNonNull(clients, "clients");
        }
    }

    /**
     * An expectation's verdict.
     *
     * @param expectation as written
     * @param actual the measured value
     * @param passed whether it held
     */
    public record Check(String expectation, double actual, boolean passed) {
    }

    /**
     * A rolling update's outcome, as the Deployment controller reports it in the Deployment's status.
     *
     * @param startedAt scenario second the new template was applied
     * @param completedAt scenario second the rollout completed (all replicas updated and available,
     *        no old pod left), or -1
     * @param deadlineExceededAt scenario second {@code Progressing} first turned False with reason
     *        {@code ProgressDeadlineExceeded}, or -1 (the controller keeps rolling; later progress
     *        turns it True again)
     * @param condition the {@code Progressing} condition at the end, e.g.
     *        {@code Progressing=True reason NewReplicaSetAvailable}
     * @param updatedReplicas pods of the new ReplicaSet at the end
     * @param availableReplicas pods available (Ready for minReadySeconds) at the end, both versions
     * @param oldReplicas pods of the old ReplicaSet at the end
     * @param maxSurge the resolved fencepost
     * @param maxUnavailable the resolved fencepost
     * @param versions what clients saw on each version: old, then new
     */
    public record RolloutStatus(double startedAt, double completedAt, double deadlineExceededAt, String condition,
            int updatedReplicas, int availableReplicas, int oldReplicas, int maxSurge, int maxUnavailable, List<Version> versions) {
        /**
         * Validates the components and copies the collections (unmodifiable).
         *
         * @param startedAt scenario second the new template was applied
         * @param completedAt scenario second the rollout completed (all replicas updated and available, no
         *        old pod
         *        left), or -1
         * @param deadlineExceededAt scenario second {@code Progressing} first turned False with reason {@code
         *        ProgressDeadlineExceeded}, or -1 (the controller keeps rolling; later progress turns it True
         *        again)
         * @param condition the {@code Progressing} condition at the end, e.g. {@code Progressing=True reason
         *        NewReplicaSetAvailable}
         * @param updatedReplicas pods of the new ReplicaSet at the end
         * @param availableReplicas pods available (Ready for minReadySeconds) at the end, both versions
         * @param oldReplicas pods of the old ReplicaSet at the end
         * @param maxSurge the resolved fencepost
         * @param maxUnavailable the resolved fencepost
         * @param versions what clients saw on each version: old, then new
         * @throws NullPointerException if a required component is null
         */
        public RolloutStatus {
            Objects.requireNonNull(condition, "condition");
            versions = List.copyOf(versions);
        }

        /** @return whether the progress deadline was exceeded at some point */
        public boolean stalled() {
            return deadlineExceededAt >= 0;
        }
    }

    /**
     * Attempts answered by one version's pods during the scenario.
     *
     * @param name {@code old} or {@code new}
     * @param ok attempts answered successfully
     * @param failed attempts that failed on its pods (timeout, queue full, reset, refused by a pod
     *        still in the endpoints); attempts with no endpoint at all count for neither version
     * @param meanLatencyMs mean latency of its successes, ms
     * @param p99LatencyMs their 99th percentile, ms (log-binned, ±10 %)
     */
    public record Version(String name, long ok, long failed, double meanLatencyMs, double p99LatencyMs) {
        /**
         * Validates the components.
         *
         * @param name {@code old} or {@code new}
         * @param ok attempts answered successfully
         * @param failed attempts that failed on its pods (timeout, queue full, reset, refused by a pod still
         *        in the
         *        endpoints); attempts with no endpoint at all count for neither version
         * @param meanLatencyMs mean latency of its successes, ms
         * @param p99LatencyMs their 99th percentile, ms (log-binned, ±10 %)
         * @throws NullPointerException if a required component is null
         */
        public Version {
            Objects.requireNonNull(name, "name");
        }

        /** @return failed attempts as a percentage of its attempts, 0 when none */
        public double errorPercent() {
            return ok + failed == 0 ? 0 : 100.0 * failed / (ok + failed);
        }
    }
}
