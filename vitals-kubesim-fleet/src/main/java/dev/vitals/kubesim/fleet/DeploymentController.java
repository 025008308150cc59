package dev.vitals.kubesim.fleet;

import java.util.List;
import java.util.Objects;

/**
 * The Deployment controller's rolling update, shared by both engines, driven by events as the
 * real one is: pods {@code [0, desired)} are the old ReplicaSet's, {@code [desired, 2·desired)}
 * the new one's, created in index order.
 *
 * <p><b>When it syncs</b> (kubernetes pkg/controller/deployment/deployment_controller.go, the
 * ReplicaSet controller pkg/controller/replicaset/replica_set.go): on the new pod template
 * ({@link #start}); whenever a pod of the Deployment is created, deleted, turns Ready or unready
 * ({@link #podChanged}: the ReplicaSet controller's {@code addPod/updatePod/deletePod} update the
 * ReplicaSet's status, whose update enqueues the Deployment); after each scale of a ReplicaSet
 * (the ReplicaSet's update event: {@code rolloutRolling} returns after scaling and the next sync
 * follows); {@code minReadySeconds + 1 s} after a pod turns Ready (replica_set.go
 * {@code updatePod}: {@code enqueueRSAfter(rs, MinReadySeconds+1s)}, "to avoid milliseconds
 * skew"); and {@code progressDeadlineSeconds + 1 s} after the last progress (progress.go
 * {@code requeueStuckDeployment}: {@code enqueueAfter(d, after+time.Second)}; with less than a
 * second left, {@code enqueueRateLimited}, modelled as 5 ms after the deadline). Syncs run on the engine's thread as soon as the event that caused them is
 * handled: the controller's workqueue and informer latency (milliseconds) are taken as 0, and
 * syncs queued at the same moment coalesce into one, as a workqueue key does.
 *
 * <p><b>One sync</b> is {@code rolloutRolling} (pkg/controller/deployment/rolling.go): first
 * {@code reconcileNewReplicaSet} scales the new ReplicaSet up to {@code NewRSNewReplicas}
 * (deployment_util.go: at most replicas + maxSurge pods in all, at most replicas new ones);
 * if it scaled, the sync ends there (the status is synced) and the ReplicaSet's update brings the
 * next one. Else {@code reconcileOldReplicaSets}: maxScaledDown = allPods − minAvailable −
 * newUnavailable (minAvailable = replicas − {@code MaxUnavailable}); if positive,
 * {@code cleanupUnhealthyReplicas} deletes old pods that are not available (up to
 * maxScaledDown), then {@code scaleDownOldReplicaSetsForRollingUpdate} deletes old pods while
 * more than minAvailable pods (old and new) are available. Fenceposts as {@code ResolveFenceposts}
 * (surge rounds up, unavailable down, both 0 → unavailable 1). Which old pod goes: not available
 * first, then in index order (the ReplicaSet controller's full ranking, {@code getPodsToDelete},
 * is not modelled). A pod is available when Ready for {@code minReadySeconds}
 * ({@code IsPodAvailable}); a deleted (terminating) pod no longer counts ({@code FilterActivePods}).
 *
 * <p><b>Status</b> ({@code syncRolloutStatus}, progress.go; deployment_util.go): complete when
 * every pod is updated and available and no old pod is left ({@code DeploymentComplete});
 * progress is more updated, Ready or available pods or fewer old ones than at the last sync
 * ({@code DeploymentProgressing}) and moves the Progressing condition's lastUpdateTime; a sync at
 * which lastUpdateTime + progressDeadlineSeconds is before now sets {@code Progressing=False
 * reason ProgressDeadlineExceeded} ({@code DeploymentTimedOut}); the controller keeps rolling,
 * and progress sets it back to True.
 *
 * <p>Not thread-safe: each engine calls it from one thread (the model's clock, the live engine's
 * kubelet thread), and {@link Pods#after} must run its action there. Times are seconds:
 * {@link Pods#now} on the engine's clock, {@link Pods#scenarioTime} scenario time.
 */
final class DeploymentController {
    /** The pods as the engine sees them, and the engine's clock. */
    interface Pods {
        /**
         * @param i a pod index
         * @return the time (engine clock) its Ready condition last turned true, or NaN when it
         *         is not Ready, not created yet, or deleted
         */
        double readySince(int i);

        /** @param i a pod index @return whether the controller deleted it */
        boolean deleted(int i);

        /** Creates new pod {@code i} (in {@code [desired, 2·desired)}) and starts its kubelet. */
        void create(int i);

        /** Deletes old pod {@code i}: out of the endpoints, SIGTERM with its grace period. */
        void delete(int i);

        /** @return the engine's clock, seconds */
        double now();

        /** @return scenario time, seconds */
        double scenarioTime();

        /**
         * Runs {@code action} on the engine's thread {@code seconds} from now; with 0, after the
         * event being handled (never inside the caller).
         */
        void after(double seconds, Runnable action);
    }

    /** How many syncs may follow one another at one moment before the loop is cut (each one scales). */
    private static final int MAX_CHAINED = 10_000;

    private final Rollout rollout;
    private final int desired;
    private final Pods pods;
    private final double[] availabilityCheck; // per pod: the Ready time an availability check was queued for
    private int surge;
    private int maxUnavailable;
    private double started = -1;
    private double done = -1;
    private double deadlineExceeded = -1; // the first time
    private boolean stalledNow; // Progressing=False until the next progress
    private double lastProgress;
    private double progressCheck = Double.NaN; // the scenario time of the queued deadline check
    private boolean queued;
    private int syncs;
    private int created;
    private int lastUpdated;
    private int lastOld;
    private int lastReady;
    private int lastAvailable;

    DeploymentController(Rollout rollout, int desired, Pods pods) {
        this.rollout = Objects.requireNonNull(rollout, "rollout");
        this.desired = desired;
        this.pods = Objects.requireNonNull(pods, "pods");
        this.availabilityCheck = new double[2 * desired];
        java.util.Arrays.fill(availabilityCheck, Double.NaN);
    }

    /** @return new pods created so far */
    int created() {
        return created;
    }

    /** @return syncs run so far (a test's and a benchmark's count) */
    int syncs() {
        return syncs;
    }

    /** @return true once the rollout completed ({@code NewReplicaSetAvailable}) */
    boolean done() {
        return done >= 0;
    }

    /** The new pod template is applied: resolves the fenceposts and queues a sync. */
    void start() {
        int[] f = rollout.fenceposts(desired);
        surge = f[0];
        maxUnavailable = f[1];
        started = pods.scenarioTime();
        lastProgress = started; // the NewReplicaSetCreated condition's time
        // the status before the new template: the old ReplicaSet's pods
        double now = pods.now();
        lastOld = 0;
        for (int i = 0; i < desired; i++) {
            if (!pods.deleted(i)) {
                lastOld++;
                lastReady += Double.isNaN(pods.readySince(i)) ? 0 : 1;
                lastAvailable += available(i, now) ? 1 : 0;
            }
        }
        enqueue();
    }

    /**
     * A pod of the Deployment was created, deleted, or turned Ready or unready: queues a sync
     * (nothing before {@link #start} or after completion).
     */
    void podChanged() {
        if (started >= 0 && done < 0) {
            enqueue();
        }
    }

    private void enqueue() {
        if (!queued) {
            queued = true;
            pods.after(0, this::drain);
        }
    }

    /** Runs queued syncs: each one that scaled a ReplicaSet brings the next (the ReplicaSet's update event). */
    private void drain() {
        queued = false;
        int chained = 0;
        while (done < 0 && sync() && ++chained < MAX_CHAINED) {
            // rolling.go returns after each scale; the ReplicaSet's update enqueues the Deployment again
        }
        if (done < 0) {
            timers();
        }
    }

    private boolean available(int i, double now) {
        double since = pods.readySince(i);
        return !Double.isNaN(since) && now - since >= rollout.minReadySeconds();
    }

    /**
     * One {@code rolloutRolling} pass.
     *
     * @return true when it scaled a ReplicaSet (a pod created or deleted)
     */
    private boolean sync() {
        syncs++;
        double now = pods.now();
        int old = 0;
        int oldAvailable = 0;
        int newAvailable = 0;
        for (int i = 0; i < desired; i++) {
            if (!pods.deleted(i)) {
                old++;
                oldAvailable += available(i, now) ? 1 : 0;
            }
        }
        for (int i = desired; i < desired + created; i++) {
            newAvailable += available(i, now) ? 1 : 0;
        }
        // reconcileNewReplicaSet: NewRSNewReplicas (deployment_util.go), maxTotalPods = replicas + maxSurge
        int scaleUp = Math.min(desired + surge - (old + created), desired - created);
        if (scaleUp > 0) {
            for (int k = 0; k < scaleUp; k++) {
                pods.create(desired + created++);
            }
            status(now, old, newAvailable);
            return true;
        }
        boolean scaled = false;
        if (old > 0) {
            // reconcileOldReplicaSets: maxScaledDown = allPodsCount - minAvailable - newRSUnavailablePodCount
            int minAvailable = desired - maxUnavailable;
            int maxScaledDown = old + created - minAvailable - (created - newAvailable);
            if (maxScaledDown > 0) {
                // cleanupUnhealthyReplicas: old pods that are not available, up to maxScaledDown
                for (int i = 0; i < desired && maxScaledDown > 0; i++) {
                    if (!pods.deleted(i) && !available(i, now)) {
                        pods.delete(i);
                        maxScaledDown--;
                        old--;
                        scaled = true;
                    }
                }
                // scaleDownOldReplicaSetsForRollingUpdate: while more than minAvailable are available
                int scaleDown = oldAvailable + newAvailable - minAvailable;
                for (int i = 0; i < desired && scaleDown > 0; i++) {
                    if (!pods.deleted(i)) {
                        pods.delete(i);
                        scaleDown--;
                        old--;
                        scaled = true;
                    }
                }
            }
        }
        status(now, old, newAvailable);
        return scaled;
    }

    /** syncRolloutStatus: the Progressing condition (progress.go, deployment_util.go). */
    private void status(double now, int old, int newAvailable) {
        double t = pods.scenarioTime();
        int ready = 0;
        int availableNow = newAvailable;
        for (int i = 0; i < desired + created; i++) {
            if (!Double.isNaN(pods.readySince(i))) {
                ready++;
                if (i < desired && available(i, now)) {
                    availableNow++;
                }
            }
        }
        // DeploymentProgressing: against the status written by the previous sync
        if (created > lastUpdated || old < lastOld || ready > lastReady || availableNow > lastAvailable) {
            lastProgress = t;
            stalledNow = false;
        }
        lastUpdated = created;
        lastOld = old;
        lastReady = ready;
        lastAvailable = availableNow;
        if (created == desired && newAvailable == desired && old == 0) {
            done = t; // DeploymentComplete: NewReplicaSetAvailable
            return;
        }
        // DeploymentTimedOut: from.Add(delta).Before(now)
        if (!stalledNow && t - lastProgress > rollout.progressDeadlineSeconds()) {
            stalledNow = true;
            if (deadlineExceeded < 0) {
                deadlineExceeded = t;
            }
        }
    }

    /** The delayed resyncs: availability checks after minReadySeconds, the progress-deadline check. */
    private void timers() {
        double now = pods.now();
        if (rollout.minReadySeconds() > 0) {
            for (int i = 0; i < desired + created; i++) {
                double since = pods.readySince(i);
                if (!Double.isNaN(since) && since != availabilityCheck[i] && now - since < rollout.minReadySeconds()) {
                    availabilityCheck[i] = since;
                    pods.after(since + rollout.minReadySeconds() + 1 - now, this::podChanged);
                }
            }
        }
        if (!stalledNow) {
            // requeueStuckDeployment: lastUpdateTime + progressDeadlineSeconds - now, plus a second; under a second,
            // enqueueRateLimited retries from 5 ms until it has timed out: modelled as the deadline plus 5 ms
            double t = pods.scenarioTime();
            double deadline = lastProgress + rollout.progressDeadlineSeconds();
            double at = deadline - t < 1 ? deadline + 0.005 : deadline + 1;
            if (!(at == progressCheck)) {
                progressCheck = at;
                pods.after(at - t, this::podChanged);
            }
        }
    }

    /**
     * @param now the engine's clock at the end of the run
     * @param versions what clients saw on each version, old then new
     * @return the Deployment's status as the controller reports it
     */
    FleetResult.RolloutStatus status(double now, List<FleetResult.Version> versions) {
        int old = 0;
        int available = 0;
        for (int i = 0; i < desired + created; i++) {
            if (i < desired && !pods.deleted(i)) {
                old++;
            }
            available += available(i, now) ? 1 : 0;
        }
        String condition;
        if (started < 0) {
            condition = "not started";
        } else if (done >= 0) {
            condition = "Progressing=True reason NewReplicaSetAvailable";
        } else if (stalledNow) {
            condition = "Progressing=False reason ProgressDeadlineExceeded";
        } else {
            condition = "Progressing=True reason ReplicaSetUpdated";
        }
        return new FleetResult.RolloutStatus(Recorder.round(started), Recorder.round(done), Recorder.round(deadlineExceeded),
                condition, created, available, old, surge, maxUnavailable, versions);
    }
}
