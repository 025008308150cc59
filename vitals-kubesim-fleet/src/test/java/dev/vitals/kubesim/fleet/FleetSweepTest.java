package dev.vitals.kubesim.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.yaml.YamlDocs;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** {@code vitals fleet FILE --sweep}: paths into the file, values, points, and where an expectation flips. */
class FleetSweepTest {
    /**
     * One replica of W = 4 workers; C closed-loop clients whose requests hold a worker S = 1 s
     * (min = max: no quartile waves), re-sent at the next 100 ms step; liveness on the worker pool
     * with timeoutSeconds T = 3, failureThreshold 3.
     */
    private static final String HAND = String.join("\n",
            "replicas: 1",
            "duration: 60s",
            "replica: {workers: 4, startTime: 1s}",
            "probes:",
            "  server: app-pool",
            "  startup:  {periodSeconds: 1, failureThreshold: 30}",
            "  liveness: {periodSeconds: 2, timeoutSeconds: 3, failureThreshold: 3}",
            "clients:",
            "  - {name: load, concurrency: 8, serviceTime: 1s, timeout: 60s}",
            "expect: ['restarts == 0']",
            "");

    private static JsonNode tree(String yaml) {
        return YamlDocs.readOne(yaml, "fleet.yaml");
    }

    private static FleetSweep plan(String yaml, String... options) {
        return FleetSweep.plan(tree(yaml), "fleet.yaml", List.of(options), UnaryOperator.identity());
    }

    @Test
    void theBoundaryIsWhereTheProbesQueueHandComputed() {
        // A probe on the pool waits (until the first request in service ends) + (waiting work) / W
        // (DESIGN 7.3). With C clients at most C - W wait, and the first request ends within S, so
        // the wait is at most S + (C - W)·S/W = C·S/W. Between a completion and the next 100 ms
        // step a finished client has not re-sent yet; at most W are in that gap (S > step), so the
        // wait is at least (C - 2W)·S/W.
        //   C = 11: at most 11·1/4 = 2.75 s (+ the probe's own 1 ms) < T = 3 s: no probe fails, no restart.
        //   C = 20: at least (20 - 8)·1/4 = 3 s ≥ T: every liveness probe fails, a kill after three.
        // The anchor's rule of thumb, (C - W)·S/W ≥ T, puts the flip at C = 16, between them.
        FleetSweep s = plan(HAND, "clients.concurrency=2..29:4");
        assertThat(s.axes().get(0).values()).containsExactly(2.0, 11.0, 20.0, 29.0);
        FleetSweep.Result r = s.run(3, 2);
        List<FleetSweep.Boundary> b = r.boundaries();
        assertThat(b).hasSize(1);
        assertThat(b.get(0).states()).containsExactly(FleetSweep.State.HOLDS, FleetSweep.State.HOLDS, FleetSweep.State.FAILS,
                FleetSweep.State.FAILS);
        assertThat(b.get(0).held()).contains(11.0);
        assertThat(b.get(0).failed()).contains(20.0);
        assertThat(b.get(0).failedAll()).contains(20.0);
        assertThat(b.get(0).unstable()).isEmpty();
        assertThat(b.get(0).rising()).isTrue();
        assertThat(SweepReport.describe(r, b.get(0)))
                .isEqualTo("holds up to clients.concurrency=11; fails in some run from 20, fails in every run from 20");
        assertThat(r.ensembles().get(2).spread(FleetEnsemble.FIGURES.get(1)).min()).as("kills at C = 20").isGreaterThanOrEqualTo(1);
    }

    @Test
    void theTimeoutSweepFlipsTheOtherWay() {
        // C = 20, W = 4, S = 1 s: a probe waits 3-5 s (bounds above). T = 2 or 3: every probe fails;
        // T = 6: none does (5.001 s < 6 s). The expectation fails below and holds above.
        String yaml = HAND.replace("concurrency: 8", "concurrency: 20");
        FleetSweep.Result r = plan(yaml, "probes.liveness.timeoutSeconds=2..6").run(3, 2);
        assertThat(r.axes().get(0).values()).containsExactly(2.0, 3.0, 4.0, 5.0, 6.0);
        FleetSweep.Boundary b = r.boundaries().get(0);
        assertThat(b.states().get(0)).isEqualTo(FleetSweep.State.FAILS);
        assertThat(b.states().get(1)).isEqualTo(FleetSweep.State.FAILS);
        assertThat(b.states().get(4)).isEqualTo(FleetSweep.State.HOLDS);
        assertThat(b.rising()).isFalse();
        assertThat(b.held().get()).isBetween(4.0, 6.0);
        assertThat(SweepReport.describe(r, b)).startsWith("fails in some run up to probes.liveness.timeoutSeconds=");
    }

    @Test
    void aTwoDimensionalSweepHasOneBoundaryPerLineAndEveryReport() throws Exception {
        FleetSweep s = plan(HAND, "clients.concurrency=2..29:4", "probes.liveness.timeoutSeconds=3..9:2");
        assertThat(s.points()).hasSize(8);
        assertThat(s.points().get(1).values()).containsExactly(11.0, 3.0); // the first axis varies fastest
        assertThat(s.points().get(4).spec().probes().liveness().get().timeoutSeconds()).isEqualTo(9);
        assertThat(s.points().get(5).spec().clients().get(0).concurrency()).isEqualTo(11);
        FleetSweep.Result r = s.run(2, 2);
        assertThat(r.boundaries()).hasSize(2);
        assertThat(r.boundaries().get(0).at()).contains(3.0);
        assertThat(r.boundaries().get(0).failed()).contains(20.0);
        // T = 9: at most 29·1/4 = 7.25 s: every point holds
        assertThat(r.boundaries().get(1).states()).containsOnly(FleetSweep.State.HOLDS);
        assertThat(SweepReport.describe(r, r.boundaries().get(1)))
                .isEqualTo("at probes.liveness.timeoutSeconds=9: holds at every point, in every run (no boundary in 2..29)");
        String text = SweepReport.text(r);
        assertThat(text).contains("clients.concurrency  probes.liveness.timeoutSeconds").contains("where each expectation flips:");
        JsonNode json = new ObjectMapper().readTree(SweepReport.json(r));
        assertThat(json.at("/sweep/axes/1/path").asText()).isEqualTo("probes.liveness.timeoutSeconds");
        assertThat(json.at("/points")).hasSize(8);
        assertThat(json.at("/points/2/checks/0/state").asText()).isEqualTo("fails");
        assertThat(json.at("/boundaries/0/held").asInt()).isEqualTo(11);
        assertThat(json.at("/boundaries/0/at").asInt()).isEqualTo(3);
        assertThat(json.at("/boundaries/1/direction").asText()).isEqualTo("none");
        String page = SweepReport.html("sweep", r);
        assertThat(page).contains("<svg").contains("rows: probes.liveness.timeoutSeconds").doesNotContain("<script");
    }

    @Test
    void theChartLabelsTheLastTickAndMarksTheBoundary() {
        FleetSweep.Result r = plan(HAND, "clients.concurrency=2..29:4").run(1, 2);
        String page = SweepReport.html("sweep", r);
        assertThat(page).contains(">29</text>").contains(">2</text>").contains("boundary: 11 | 20").contains("bound: == 0")
                .contains(">clients.concurrency</text>");
    }

    @Test
    void valuesFollowTheFileAndTheRange() {
        String yaml = HAND.replace("startTime: 1s}", "startTime: 1s, warmupFactor: 1.5, warmupTime: 10s}");
        FleetSweep.Axis whole = plan(yaml, "clients.concurrency=1..5:3").axes().get(0);
        assertThat(whole.kind()).isEqualTo(FleetSweep.Kind.INTEGER);
        assertThat(whole.values()).containsExactly(1.0, 3.0, 5.0);
        assertThat(plan(yaml, "clients.concurrency=1..3:5").axes().get(0).values()).as("rounded, no duplicates")
                .containsExactly(1.0, 2.0, 3.0);
        assertThat(plan(yaml, "replicas=1..100").axes().get(0).values()).as("default 11 points").hasSize(11).startsWith(1.0, 11.0)
                .endsWith(100.0);
        assertThat(plan(yaml, "replicas=1..21").axes().get(0).values()).as("a short whole range: every number").hasSize(21);
        FleetSweep.Axis dec = plan(yaml, "replica.warmupFactor=1..2:5").axes().get(0);
        assertThat(dec.kind()).isEqualTo(FleetSweep.Kind.DECIMAL);
        assertThat(dec.values()).containsExactly(1.0, 1.25, 1.5, 1.75, 2.0);
        FleetSweep dur = plan(yaml, "replica.warmupTime=500ms..2s:4");
        assertThat(dur.axes().get(0).kind()).isEqualTo(FleetSweep.Kind.DURATION);
        assertThat(dur.axes().get(0).format(1000)).isEqualTo("1000ms");
        assertThat(dur.points().get(1).spec().replica().warmupTime()).isEqualTo(java.time.Duration.ofMillis(1000));
        // a field the file does not write is added; the reader validates it as any other
        FleetSweep delay = plan(yaml, "service.propagationDelay=1s..3s:3");
        assertThat(delay.points()).hasSize(3);
        assertThat(delay.points().get(2).spec().service().propagationDelay()).isEqualTo(java.time.Duration.ofSeconds(3));
    }

    @Test
    void aListWithoutAnIndexSweepsEveryElementThatHasTheField() {
        String yaml = HAND.replace("  - {name: load, concurrency: 8, serviceTime: 1s, timeout: 60s}",
                "  - {name: a, concurrency: 8, serviceTime: 1s, timeout: 60s}\n  - {name: b, rate: 5, serviceTime: 1s, timeout: 60s}\n"
                        + "  - {name: c, concurrency: 2, serviceTime: 1s, timeout: 60s}");
        FleetSweep s = plan(yaml, "clients.concurrency=10..20:2");
        FleetSpec last = s.points().get(1).spec();
        assertThat(last.clients().get(0).concurrency()).isEqualTo(20);
        assertThat(last.clients().get(1).rate()).isEqualTo(5);
        assertThat(last.clients().get(2).concurrency()).isEqualTo(20);
        FleetSpec one = plan(yaml, "clients[2].concurrency=10..20:2").points().get(0).spec();
        assertThat(one.clients().get(0).concurrency()).isEqualTo(8);
        assertThat(one.clients().get(2).concurrency()).isEqualTo(10);
    }

    @Test
    void badInputIsOneLine() {
        assertBad(HAND, "clients.concurrency", "--sweep 'clients.concurrency': use PATH=FROM..TO[:STEPS]");
        assertBad(HAND, "clients.concurrency=10-20", "--sweep 'clients.concurrency=10-20': use PATH=FROM..TO[:STEPS]");
        assertBad(HAND, "replica.nope.x=1..2", "--sweep at replica.nope.x=1: fleet.yaml: replica.nope: unknown field");
        assertBad(HAND, "nope[0].x=1..2", "--sweep nope[0].x: fleet.yaml has no nope");
        assertBad(HAND, "clients.concurency=1..5", "--sweep clients.concurency: no element of clients in fleet.yaml has concurency");
        assertBad(HAND, "clients[0].concurency=1..5", "--sweep at clients[0].concurency=1: fleet.yaml: clients[0].concurency: unknown field");
        assertBad(HAND, "probes.server=1..5", "--sweep probes.server is 'app-pool', not a number");
        assertBad(HAND, "probes.liveness=1..5", "--sweep probes.liveness is a mapping (sweep a field inside it), not a number");
        assertBad(HAND, "clients=1..5", "--sweep clients is a list (give an index, e.g. clients[0].FIELD), not a number");
        assertBad(HAND, "clients[3].concurrency=1..5", "--sweep clients[3].concurrency: fleet.yaml has no clients[3] (the list has 1)");
        assertBad(HAND, "clients.rate=1..5", "--sweep clients.rate: no element of clients in fleet.yaml has rate; name one, e.g. clients[0].rate");
        assertBad(HAND, "clients.concurrency=20..10", "--sweep clients.concurrency: FROM must be below TO, was 20..10");
        assertBad(HAND, "clients.concurrency=5..5", "--sweep clients.concurrency: FROM must be below TO, was 5..5");
        assertBad(HAND, "clients.concurrency=1..5:1", "--sweep clients.concurrency: STEPS (the number of points) must be 2-100, was 1");
        assertBad(HAND, "clients.concurrency=1..500:101", "--sweep clients.concurrency: STEPS (the number of points) must be 2-100, was 101");
        assertBad(HAND, "clients.concurrency=1.5..5", "--sweep at clients.concurrency=1.5: fleet.yaml: clients[0].concurrency: must be a whole number, was '1.5'");
        assertBad(HAND, "clients.concurrency=a..b", "--sweep clients.concurrency is a number (8): FROM and TO must be numbers, was a..b");
        assertBad(HAND, "clients.concurrency=1s..5s", "--sweep clients.concurrency is a number (8): FROM and TO must be numbers, was 1s..5s");
        assertBad(HAND, "clients.timeout=1%..5%", "--sweep clients.timeout is a duration (60s): give FROM and TO as durations");
        assertBad(HAND, "replicas=0..3", "--sweep at replicas=0: fleet.yaml: replicas: must be 1-1000000, was 0");
        assertBad(HAND.replace("expect: ['restarts == 0']", ""), "replicas=1..3", "--sweep needs at least one expectation");
        assertThatThrownBy(() -> FleetSweep.plan(tree(HAND), "fleet.yaml", List.of("replicas=1..2", "replicas=3..4"),
                UnaryOperator.identity())).hasMessage("--sweep replicas is given twice");
        assertThatThrownBy(() -> FleetSweep.plan(tree(HAND), "fleet.yaml", List.of("replicas=1..2", "a=1..2", "b=1..2"),
                UnaryOperator.identity())).hasMessage("--sweep: give one or two (a 2-D sweep), was 3");
    }

    @Test
    void aPathTheModelDoesNotReadIsRefusedNotSweptAsNothing() {
        // a Service object's fields the model ignores are accepted by the reader: sweeping one would print the same row
        String withService = HAND.replace("clients:", "service: {apiVersion: v1, kind: Service, metadata: {name: s},"
                + " spec: {selector: {app: a}, ports: [{port: 80}]}}\nclients:");
        assertBad(withService, "service.spec.bogus=1..3", "--sweep service.spec.bogus: the fleet is the same at every value");
        assertBad(withService, "service.metadata.generation=1..3", "--sweep service.metadata.generation: the fleet is the same");
        assertThat(plan(withService, "clients.concurrency=2..8:4").points()).hasSize(4); // a field it reads still sweeps
    }

    @Test
    void moreThanFiveThousandRunsInAllAreRefusedBeforeAnyRuns() {
        FleetSweep s = plan(HAND, "clients.concurrency=1..100:100");
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException().isThrownBy(() -> s.run(51, 2))
                .withMessage("--sweep: 100 points x 51 runs is 5100 runs, more than 5000: use fewer STEPS or --runs");
    }

    private static void assertBad(String yaml, String option, String message) {
        assertThatThrownBy(() -> plan(yaml, option)).isInstanceOf(InvalidInputException.class)
                .hasMessageStartingWith(message).hasMessageNotContaining("\n");
    }

    @Test
    void boundariesInBothDirectionsWithTheUnstableBand() {
        FleetSweep.State h = FleetSweep.State.HOLDS;
        FleetSweep.State u = FleetSweep.State.UNSTABLE;
        FleetSweep.State f = FleetSweep.State.FAILS;
        List<Double> v = List.of(10.0, 20.0, 30.0, 40.0, 50.0, 60.0);
        FleetSweep.Boundary up = FleetSweep.Result.boundary("x", Optional.empty(), List.of(h, h, u, u, f, f), v);
        assertThat(up.held()).contains(20.0);
        assertThat(up.failed()).contains(30.0);
        assertThat(up.unstable()).containsExactly(30.0, 40.0);
        assertThat(up.failedAll()).contains(50.0);
        assertThat(up.rising()).isTrue();
        assertThat(up.flips()).isEqualTo(1);
        FleetSweep.Boundary down = FleetSweep.Result.boundary("x", Optional.empty(), List.of(f, u, h, h, h, h), v);
        assertThat(down.held()).contains(30.0);
        assertThat(down.failed()).contains(20.0);
        assertThat(down.unstable()).containsExactly(20.0);
        assertThat(down.failedAll()).contains(10.0);
        assertThat(down.rising()).isFalse();
        FleetSweep.Boundary twice = FleetSweep.Result.boundary("x", Optional.empty(), List.of(h, u, h, h, f, f), v);
        assertThat(twice.flips()).isEqualTo(3);
        assertThat(twice.held()).contains(10.0);
        assertThat(twice.failedAll()).isEmpty();
        FleetSweep.Boundary never = FleetSweep.Result.boundary("x", Optional.empty(), List.of(u, u, f, f, f, f), v);
        assertThat(never.held()).isEmpty();
        assertThat(never.flips()).isZero();
    }
}
