package dev.vitals.kubesim.fleet;

import java.time.Duration;
import java.util.Objects;

/**
 * A rolling update of the fleet's Deployment (strategy {@code RollingUpdate}): at {@link #at()}
 * the pod template changes; a new ReplicaSet of the new version is scaled up and the old one down
 * as the Deployment controller does, both behind the same Service. Immutable.
 *
 * @param at when the rollout starts, from scenario start
 * @param maxSurge pods above {@code replicas} during the rollout: a count ({@code 1}) or a
 *        percentage of replicas ({@code 25%}, rounded up); Kubernetes' default 25%
 * @param maxUnavailable pods below {@code replicas} that may be unavailable: a count or a
 *        percentage (rounded down); default 25%. Both written as 0 is invalid (API validation)
 * @param minReadySeconds a pod counts as available only after being Ready this long, ≥ 0 (default 0)
 * @param progressDeadlineSeconds no progress for this long → {@code Progressing=False} reason
 *        {@code ProgressDeadlineExceeded}, ≥ 1 (default 600)
 * @param startTime the new version's cold start (container start until the port answers)
 * @param warmupFactor the new version's service times are multiplied by this right after start, ≥ 1
 * @param warmupPeriod the factor falls linearly to 1 over this time since start (0 = use requests)
 * @param warmupRequests or over this many served requests (0 = use the period); exactly one of the two
 * @param readinessWaitsForWarmup false: the new version is Ready as soon as its port answers (naive,
 *        cold); true: its readiness stays DOWN until warm-up is over (vitals-core {@code Warmup}:
 *        with {@code warmupRequests}, its warm-up routine sends them itself)
 */
record Rollout(Duration at, String maxSurge, String maxUnavailable, int minReadySeconds, int progressDeadlineSeconds,
        Duration startTime, double warmupFactor, Duration warmupPeriod, int warmupRequests, boolean readinessWaitsForWarmup) {

    /**
     * Validates the components.
     *
     * @param at when the rollout starts, from scenario start
     * @param maxSurge pods above {@code replicas} during the rollout: a count ({@code 1}) or a percentage of
     *        replicas ({@code 25%}, rounded up); Kubernetes' default 25%
     * @param maxUnavailable pods below {@code replicas} that may be unavailable: a count or a percentage
     *        (rounded
     *        down); default 25%. Both written as 0 is invalid (API validation)
     * @param minReadySeconds a pod counts as available only after being Ready this long, ≥ 0 (default 0)
     * @param progressDeadlineSeconds no progress for this long → {@code Progressing=False} reason {@code
     *        ProgressDeadlineExceeded}, ≥ 1 (default 600)
     * @param startTime the new version's cold start (container start until the port answers)
     * @param warmupFactor the new version's service times are multiplied by this right after start, ≥ 1
     * @param warmupPeriod the factor falls linearly to 1 over this time since start (0 = use requests)
     * @param warmupRequests or over this many served requests (0 = use the period); exactly one of the two
     * @param readinessWaitsForWarmup false: the new version is Ready as soon as its port answers (naive, cold);
     *        true: its readiness stays DOWN until warm-up is over (vitals-core {@code Warmup}: with {@code
     *        warmupRequests}, its warm-up routine sends them itself)
     * @throws IllegalArgumentException if a component is outside its documented range
     * @throws NullPointerException if a required component is null
     */
    public Rollout {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(maxSurge, "maxSurge");
        Objects.requireNonNull(maxUnavailable, "maxUnavailable");
        FleetSpec.nonNegative("rollout.at", at);
        FleetSpec.nonNegative("rollout.startTime", startTime);
        FleetSpec.nonNegative("rollout.warmup.period", warmupPeriod);
        check("rollout.maxSurge", maxSurge);
        check("rollout.maxUnavailable", maxUnavailable);
        if (isZero(maxSurge) && isZero(maxUnavailable)) {
            throw new IllegalArgumentException("rollout: maxSurge and maxUnavailable may not both be 0 (the rollout could never "
                    + "proceed; Kubernetes rejects it too)");
        }
        if (minReadySeconds < 0 || minReadySeconds > 86_400) {
            throw new IllegalArgumentException("rollout.minReadySeconds must be 0-86400, was " + minReadySeconds);
        }
        if (progressDeadlineSeconds < 1 || progressDeadlineSeconds > 86_400) {
            throw new IllegalArgumentException("rollout.progressDeadlineSeconds must be 1-86400, was " + progressDeadlineSeconds);
        }
        if (progressDeadlineSeconds <= minReadySeconds) {
            // apps/v1 validation: progressDeadlineSeconds must be greater than minReadySeconds
            throw new IllegalArgumentException("rollout.progressDeadlineSeconds (" + progressDeadlineSeconds
                    + ") must be greater than minReadySeconds (" + minReadySeconds + ")");
        }
        if (!(warmupFactor >= 1) || warmupFactor > 100) {
            throw new IllegalArgumentException("rollout.warmup.factor must be 1-100, was " + warmupFactor);
        }
        if (warmupRequests < 0) {
            throw new IllegalArgumentException("rollout.warmup.requests must be at least 0, was " + warmupRequests);
        }
        if (warmupFactor > 1 && warmupPeriod.isZero() == (warmupRequests == 0)) {
            throw new IllegalArgumentException("rollout.warmup: give exactly one of period or requests");
        }
    }

    /**
     * The Deployment controller's fenceposts: maxSurge as a percentage rounds up, maxUnavailable
     * rounds down, and when both resolve to 0 maxUnavailable becomes 1 (kubernetes
     * pkg/controller/deployment/util/deployment_util.go, ResolveFenceposts).
     *
     * @param replicas the Deployment's replicas, ≥ 0
     * @return {surge, unavailable}
     */
    public int[] fenceposts(int replicas) {
        return resolveFenceposts(maxSurge, maxUnavailable, replicas);
    }

    /**
     * @param maxSurge a count or a percentage
     * @param maxUnavailable a count or a percentage
     * @param replicas desired replicas
     * @return {surge, unavailable} as {@link #fenceposts(int)}
     * @throws IllegalArgumentException for a value that is neither
     */
    public static int[] resolveFenceposts(String maxSurge, String maxUnavailable, int replicas) {
        int surge = scaled(maxSurge, replicas, true);
        int unavailable = scaled(maxUnavailable, replicas, false);
        if (surge == 0 && unavailable == 0) {
            unavailable = 1;
        }
        return new int[] {surge, unavailable};
    }

    /** apimachinery intstr.GetScaledValueFromIntOrPercent. */
    private static int scaled(String v, int total, boolean roundUp) {
        if (v.endsWith("%")) {
            long p = Long.parseLong(v.substring(0, v.length() - 1));
            return (int) (roundUp ? (p * total + 99) / 100 : p * total / 100);
        }
        return Integer.parseInt(v);
    }

    private static void check(String field, String v) {
        if (!v.matches("\\d{1,6}%?")) {
            throw new IllegalArgumentException(field + " must be a count (1) or a percentage (25%), was '" + v + "'");
        }
        if (v.endsWith("%") && Integer.parseInt(v.substring(0, v.length() - 1)) > 100 && field.endsWith("maxUnavailable")) {
            throw new IllegalArgumentException(field + " must be at most 100%, was '" + v + "'");
        }
    }

    private static boolean isZero(String v) {
        return v.equals("0") || v.equals("0%") || v.matches("0+%?");
    }

    /**
     * This rollout with the new version's readiness waiting for warm-up, or not.
     *
     * @param wait whether the new version reports Ready only once warmed up
     * @return a copy with the other readiness
     */
    public Rollout withReadinessWaitsForWarmup(boolean wait) {
        return new Rollout(at, maxSurge, maxUnavailable, minReadySeconds, progressDeadlineSeconds, startTime, warmupFactor,
                warmupPeriod, warmupRequests, wait);
    }

    /**
     * @param sinceStart seconds since the replica's process started answering
     * @param served requests it has served
     * @return the service-time multiplier of a new-version replica
     */
    public double factor(double sinceStart, long served) {
        if (warmupFactor <= 1) {
            return 1;
        }
        double progress = warmupRequests > 0 ? served / (double) warmupRequests : sinceStart / (warmupPeriod.toNanos() / 1e9);
        return progress >= 1 ? 1 : 1 + (warmupFactor - 1) * (1 - progress);
    }
}
