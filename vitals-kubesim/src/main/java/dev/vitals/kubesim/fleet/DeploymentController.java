package dev.vitals.kubesim.fleet;

import java.util.List;
import java.util.Objects;

/**
 * The Deployment controller's rolling update, shared by both engines: pods {@code [0, desired)}
 * are the old ReplicaSet's, {@code [desired, 2·desired)} the new one's, created in index order.
 * Each {@link #sync} scales the new ReplicaSet up within maxSurge (NewRSNewReplicas), deletes
 * old pods that are not available, then old pods while minAvailable = replicas − maxUnavailable
 * stay available (reconcileOldReplicaSets, cleanupUnhealthyReplicas,
 * scaleDownOldReplicaSetsForRollingUpdate in kubernetes pkg/controller/deployment/rolling.go),
 * then updates the Progressing condition: progress is more updated, ready or available replicas
 * or fewer old ones (deployment_util.go DeploymentProgressing); none for
 * progressDeadlineSeconds is ProgressDeadlineExceeded (the controller keeps rolling).
 *
 * <p>Not thread-safe: each engine calls it from one thread (the model's clock, the live engine's
 * kubelet thread). Times are seconds: {@code now} on the engine's clock, {@code t} scenario time.
 */
final class DeploymentController {
    /** The pods as the engine sees them. */
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
    }

    private final Rollout rollout;
    private final int desired;
    private final Pods pods;
    private int surge;
    private int maxUnavailable;
    private double started = -1;
    private double done = -1;
    private double deadlineExceeded = -1; // the first time
    private boolean stalledNow; // Progressing=False until the next progress
    private double lastProgress;
    private int created;
    private int lastUpdated;
    private int lastOld;
    private int lastReady;
    private int lastAvailable;

    DeploymentController(Rollout rollout, int desired, Pods pods) {
        this.rollout = Objects.requireNonNull(rollout, "rollout");
        this.desired = desired;
        this.pods = Objects.requireNonNull(pods, "pods");
    }

    /** @return new pods created so far */
    int created() {
        return created;
    }

    /**
     * The new pod template is applied: resolves the fenceposts and syncs once.
     *
     * @return true when the rollout is complete (no further sync needed)
     */
    boolean start(double now, double t) {
        int[] f = rollout.fenceposts(desired);
        surge = f[0];
        maxUnavailable = f[1];
        started = t;
        lastProgress = t;
        lastOld = desired;
        return sync(now, t);
    }

    private boolean available(int i, double now) {
        double since = pods.readySince(i);
        return !Double.isNaN(since) && now - since >= rollout.minReadySeconds();
    }

    /**
     * One sync (the engines call it once a second; the real controller syncs on every pod and
     * ReplicaSet change).
     *
     * @return true when the rollout is complete: every pod updated and available, no old pod left
     */
    boolean sync(double now, double t) {
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
        int scaleUp = Math.min(desired + surge - (old + created), desired - created);
        for (int k = 0; k < scaleUp; k++) {
            pods.create(desired + created++);
        }
        int minAvailable = desired - maxUnavailable;
        int maxScaledDown = old + created - minAvailable - (created - newAvailable);
        if (maxScaledDown > 0) {
            for (int i = 0; i < desired && maxScaledDown > 0; i++) {
                if (!pods.deleted(i) && !available(i, now)) {
                    pods.delete(i);
                    maxScaledDown--;
                    old--;
                }
            }
            int scaleDown = oldAvailable + newAvailable - minAvailable;
            for (int i = 0; i < desired && scaleDown > 0; i++) {
                if (!pods.deleted(i)) {
                    pods.delete(i);
                    scaleDown--;
                    old--;
                }
            }
        }
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
        if (created > lastUpdated || old < lastOld || ready > lastReady || availableNow > lastAvailable) {
            lastProgress = t;
            stalledNow = false;
        }
        lastUpdated = created;
        lastOld = old;
        lastReady = ready;
        lastAvailable = availableNow;
        if (created == desired && newAvailable == desired && old == 0) {
            done = t;
            return true;
        }
        if (!stalledNow && t - lastProgress > rollout.progressDeadlineSeconds()) {
            stalledNow = true;
            if (deadlineExceeded < 0) {
                deadlineExceeded = t;
            }
        }
        return false;
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
