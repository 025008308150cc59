package dev.vitals.kubesim.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.model.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The rolling update's timeline against the Deployment controller's own rules, computed by hand
 * from the Kubernetes sources (read at kubernetes/kubernetes 95f08499d652): pkg/controller/deployment/rolling.go ({@code rolloutRolling},
 * {@code reconcileNewReplicaSet}, {@code reconcileOldReplicaSets}, {@code cleanupUnhealthyReplicas},
 * {@code scaleDownOldReplicaSetsForRollingUpdate}), util/deployment_util.go ({@code NewRSNewReplicas},
 * {@code MaxUnavailable}, {@code ResolveFenceposts}, {@code DeploymentTimedOut}), progress.go
 * ({@code requeueStuckDeployment}) and pkg/controller/replicaset/replica_set.go ({@code updatePod}:
 * the availability check minReadySeconds + 1 s after Ready). The pods are the engine's seam, on a
 * virtual clock: each new pod turns Ready a fixed time after its creation; the old ones are Ready.
 * Each timeline entry is the state after everything that happened at that moment, to 100 ms:
 * {@code t old new ready-new}.
 */
class DeploymentControllerTest {

    /** The engine's pods on a virtual clock, and the timeline of pods per version. */
    private static final class Pods implements DeploymentController.Pods {
        final VirtualTime time = new VirtualTime();
        final int desired;
        final double readyAfter;
        final double[] readySince;
        final boolean[] deleted;
        final List<String> timeline = new ArrayList<>();
        DeploymentController controller;
        int created;

        Pods(int desired, double readyAfter) {
            this.desired = desired;
            this.readyAfter = readyAfter;
            this.readySince = new double[2 * desired];
            this.deleted = new boolean[2 * desired];
            Arrays.fill(readySince, Double.NaN);
            for (int i = 0; i < desired; i++) {
                readySince[i] = -1000; // Ready long before the rollout
            }
        }

        @Override
        public double readySince(int i) {
            return deleted[i] ? Double.NaN : readySince[i];
        }

        @Override
        public boolean deleted(int i) {
            return deleted[i];
        }

        @Override
        public void create(int i) {
            created++;
            record();
            if (readyAfter >= 0) {
                time.schedule(Math.round(readyAfter * 1e9), () -> {
                    readySince[i] = now();
                    record();
                    controller.podChanged();
                });
            }
        }

        @Override
        public void delete(int i) {
            deleted[i] = true;
            record();
        }

        @Override
        public double now() {
            return time.monotonicTime() / 1e9;
        }

        @Override
        public double scenarioTime() {
            return now();
        }

        @Override
        public void after(double seconds, Runnable action) {
            time.schedule(Math.round(seconds * 1e9), action);
        }

        /** The state now, replacing an entry of the same moment (the state after that moment's syncs). */
        void record() {
            int old = 0;
            int ready = 0;
            for (int i = 0; i < desired; i++) {
                old += deleted[i] ? 0 : 1;
            }
            for (int i = desired; i < desired + created; i++) {
                ready += Double.isNaN(readySince[i]) ? 0 : 1;
            }
            String at = String.format(Locale.ROOT, "%.1f", now());
            String entry = at + " old " + old + " new " + created + " ready " + ready;
            if (!timeline.isEmpty() && timeline.get(timeline.size() - 1).startsWith(at + " ")) {
                timeline.remove(timeline.size() - 1);
            }
            timeline.add(entry);
        }
    }

    private static Pods roll(int replicas, String surge, String unavailable, int minReadySeconds, int deadline, double readyAfter,
            Duration runFor) {
        Pods pods = new Pods(replicas, readyAfter);
        Rollout r = new Rollout(Duration.ZERO, surge, unavailable, minReadySeconds, deadline, Duration.ofSeconds(1), 1, Duration.ZERO,
                0, false);
        pods.controller = new DeploymentController(r, replicas, pods);
        pods.controller.start();
        pods.time.advance(runFor);
        return pods;
    }

    private static FleetResult.RolloutStatus status(Pods p) {
        return p.controller.status(p.now(), List.of());
    }

    @Test
    void sixReplicasSurgeTwoUnavailableOneFinishInTwoWavesAtTenSeconds() {
        // issue 38's first case. t0: NewRSNewReplicas = min(6 + 2 - 6, 6 - 0) = 2 new; the RS update's sync:
        // maxScaledDown = 8 - 5 - 2 = 1, six old available > minAvailable 5: one old goes; then 7 < 8: one more new.
        // t0+5: three new Ready, 5 + 3 = 8 available: three old go (8 - 5), then 3 + 5 < 8: three new.
        // t0+10: those Ready: the last two old go; every pod updated and available.
        Pods p = roll(6, "2", "1", 0, 600, 5, Duration.ofSeconds(30));
        assertThat(p.timeline).containsExactly(
                "0.0 old 5 new 3 ready 0",
                "5.0 old 2 new 6 ready 3",
                "10.0 old 0 new 6 ready 6");
        assertThat(status(p).completedAt()).isEqualTo(10.0);
        assertThat(status(p).condition()).isEqualTo("Progressing=True reason NewReplicaSetAvailable");
    }

    @Test
    void tenReplicasAtTheDefaultsCreateFiveNewPodsInTheFirstStep() {
        // issue 38's second case. 25 % of 10: surge 3 (rounds up), unavailable 2 (rounds down).
        // t0: 3 new (13 pods); then maxScaledDown = 13 - 8 - 3 = 2, 10 available - 8 = 2 old go; then 11 < 13: 2 new: 5 new.
        // t0+5: 5 Ready, 13 available: 5 old go, 5 new. t0+10: done.
        Pods p = roll(10, "25%", "25%", 0, 600, 5, Duration.ofSeconds(30));
        assertThat(p.timeline).containsExactly(
                "0.0 old 8 new 5 ready 0",
                "5.0 old 3 new 10 ready 5",
                "10.0 old 0 new 10 ready 10");
        assertThat(status(p).completedAt()).isEqualTo(10.0);
    }

    @Test
    void noSurgeOneUnavailableReplacesOnePodEveryTenSecondsFiftySecondsInAll() {
        // issue 38's third case: 5 replicas, maxSurge 0, maxUnavailable 1, new pods Ready after 10 s.
        // Each wave: an old pod goes (5 available > 4), the room it leaves is one new pod (4 < 5) at the same moment.
        Pods p = roll(5, "0", "1", 0, 600, 10, Duration.ofSeconds(80));
        assertThat(p.timeline).containsExactly(
                "0.0 old 4 new 1 ready 0",
                "10.0 old 3 new 2 ready 1",
                "20.0 old 2 new 3 ready 2",
                "30.0 old 1 new 4 ready 3",
                "40.0 old 0 new 5 ready 4",
                "50.0 old 0 new 5 ready 5");
        assertThat(status(p).completedAt()).isEqualTo(50.0);
    }

    @Test
    void minReadySecondsIsCheckedOneSecondLateAsTheReplicaSetControllerQueuesIt() {
        // 4 replicas, maxSurge 1, maxUnavailable 0, Ready 3 s after creation, minReadySeconds 5.
        // A new pod turns Ready at c+3 and is available from c+8, but nothing syncs then: replica_set.go
        // updatePod queues the ReplicaSet MinReadySeconds + 1 s after Ready, so the Deployment sees it at c+9.
        // Each wave is 9 s: an old pod goes, a new one comes at 9, 18, 27; the last old pod goes at 36.
        Pods p = roll(4, "1", "0", 5, 600, 3, Duration.ofSeconds(60));
        assertThat(p.timeline).containsExactly(
                "0.0 old 4 new 1 ready 0",
                "3.0 old 4 new 1 ready 1",
                "9.0 old 3 new 2 ready 1",
                "12.0 old 3 new 2 ready 2",
                "18.0 old 2 new 3 ready 2",
                "21.0 old 2 new 3 ready 3",
                "27.0 old 1 new 4 ready 3",
                "30.0 old 1 new 4 ready 4",
                "36.0 old 0 new 4 ready 4");
        assertThat(status(p).completedAt()).isEqualTo(36.0);
    }

    @Test
    void theProgressDeadlineIsExceededOneSecondAfterItAndProgressClearsIt() {
        // 3 replicas, maxSurge 1, maxUnavailable 0, progressDeadlineSeconds 30, new pods Ready 40 s after creation.
        // Progress at 0 (a new pod); requeueStuckDeployment queues a check at 0 + 30 + 1 s, where
        // DeploymentTimedOut (lastUpdateTime + 30 s before now) holds: ProgressDeadlineExceeded at 31 s.
        // At 40 the pod is Ready (progress: Progressing=True again), an old pod goes, a new one comes; 30 s without
        // progress after that is 71 s; and so on until the last old pod goes at 120 s.
        Pods p = roll(3, "1", "0", 0, 30, 40, Duration.ofSeconds(30));
        assertThat(status(p).condition()).isEqualTo("Progressing=True reason ReplicaSetUpdated");
        p.time.advance(Duration.ofMillis(900));
        assertThat(status(p).condition()).as("at 30.9 s").isEqualTo("Progressing=True reason ReplicaSetUpdated");
        p.time.advance(Duration.ofMillis(200));
        assertThat(status(p).condition()).as("at 31.1 s").isEqualTo("Progressing=False reason ProgressDeadlineExceeded");
        assertThat(status(p).deadlineExceededAt()).isEqualTo(31.0);
        p.time.advance(Duration.ofSeconds(9)); // 40.1 s
        assertThat(status(p).condition()).isEqualTo("Progressing=True reason ReplicaSetUpdated");
        p.time.advance(Duration.ofSeconds(31)); // 71.1 s
        assertThat(status(p).condition()).isEqualTo("Progressing=False reason ProgressDeadlineExceeded");
        assertThat(status(p).deadlineExceededAt()).as("the first time").isEqualTo(31.0);
        p.time.advance(Duration.ofSeconds(60));
        assertThat(p.timeline).containsExactly(
                "0.0 old 3 new 1 ready 0",
                "40.0 old 2 new 2 ready 1",
                "80.0 old 1 new 3 ready 2",
                "120.0 old 0 new 3 ready 3");
        assertThat(status(p).completedAt()).isEqualTo(120.0);
    }

    @Test
    void theModelEngineRollsTheExampleInTwoWavesOfItsPodsStart() throws Exception {
        // examples/kubesim/fleet-rollout.yaml: 6 replicas at the defaults (maxSurge 2, maxUnavailable 1), a new pod
        // answers 4.5 s after its start and its startup probe (period 1 s) passes at the next whole second, 5 s after
        // creation; so the first case's two waves: complete 10 s after the template (was 14 s with a sync once a second)
        FleetSpec spec = FleetSpecReader.read(java.nio.file.Path.of("..", "examples", "kubesim", "fleet-rollout.yaml"));
        FleetResult.RolloutStatus r = new ModelFleet(spec, "rollout").run().rollout().orElseThrow();
        assertThat(r.condition()).isEqualTo("Progressing=True reason NewReplicaSetAvailable");
        assertThat(r.completedAt() - r.startedAt()).isBetween(9.9, 10.5);
    }

    @Test
    void syncsFollowEventsNotATick() {
        // five minutes of the first case: a handful of syncs (start, each scale's follow-up, each Ready), not 300
        Pods p = roll(6, "2", "1", 0, 600, 5, Duration.ofMinutes(5));
        assertThat(p.controller.syncs()).isBetween(6, 20);
    }
}
