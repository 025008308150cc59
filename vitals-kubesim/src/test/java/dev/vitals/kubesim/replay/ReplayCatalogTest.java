package dev.vitals.kubesim.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vitals.kubesim.fault.LoadGenerator;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.scenario.Action;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplayCatalogTest {

    private static ReplayCase only(String name) {
        return ReplayCatalog.all().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    private static ProbeHandler.HttpGet http(PodSpec pod, ProbeType t) {
        return (ProbeHandler.HttpGet) pod.probe(t).orElseThrow().handler();
    }

    @Test
    void incidentUsesTheIncidentsNumbers() {
        ReplayCase c = only("incident");
        assertThat(c.liveness()).isEqualTo(new ProbeTiming(2, 3, 3));
        assertThat(c.demoFlags()).containsSequence("--workers", "40").containsSequence("--export-min-ms", "4000")
                .containsSequence("--export-max-ms", "12000");
        ReplayStep load = c.steps().get(0);
        assertThat(c.steps()).hasSize(1);
        assertThat(load.kind()).isEqualTo("load");
        assertThat(load.length()).isEqualTo(Duration.ofSeconds(40));
        assertThat(load.start()).singleElement().isInstanceOfSatisfying(Action.SustainedLoad.class, l -> {
            assertThat(l.spec().clients()).isEqualTo(100);
            assertThat(l.spec().sustain()).isEqualTo(Duration.ofSeconds(40));
            assertThat(l.spec().port()).isEqualTo(LoadGenerator.APP_PORT);
        });
        ReplayCase burst = only("incident-burst");
        assertThat(burst.liveness().timeoutSeconds()).isEqualTo(1); // kubelet's default timeout
        assertThat(burst.steps()).singleElement().satisfies(b -> {
            assertThat(b.trigger()).isEqualTo(ReplayStep.Trigger.NEXT_LIVENESS_PROBE);
            assertThat(b.start()).singleElement().isInstanceOfSatisfying(Action.Load.class, l -> {
                assertThat(l.spec().count()).isEqualTo(53);
                assertThat(l.spec().concurrency()).isEqualTo(50);
            });
        });
    }

    @Test
    void incidentGrpcProbesTheVitalsRunOverGrpcAndTheNaiveRunOverHttp() {
        ReplayCase c = only("incident-grpc");
        assertThat(c.scenario()).isEqualTo("grpc");
        assertThat(c.grpcProbes()).isTrue();
        assertThat(c.liveness()).isEqualTo(only("incident").liveness());
        assertThat(c.demoFlags()).isEqualTo(only("incident").demoFlags());
        PodSpec vitals = c.pod(Wiring.VITALS, 18080, 18081, 18082);
        assertThat(vitals.probe(ProbeType.STARTUP).orElseThrow().handler()).isEqualTo(new ProbeHandler.Grpc(18082, "startup"));
        assertThat(vitals.probe(ProbeType.LIVENESS).orElseThrow().handler()).isEqualTo(new ProbeHandler.Grpc(18082, "liveness"));
        assertThat(vitals.probe(ProbeType.READINESS).orElseThrow().handler()).isEqualTo(new ProbeHandler.Grpc(18082, ""));
        assertThat(c.grpcFlags(Wiring.VITALS, 18082)).containsExactly("--grpc-port", "18082");
        PodSpec naive = c.pod(Wiring.NAIVE, 18080, 18081, 18082);
        assertThat(http(naive, ProbeType.LIVENESS).path()).isEqualTo("/healthz");
        assertThat(c.grpcFlags(Wiring.NAIVE, 18082)).isEmpty();
        ReplayCase http = only("incident");
        assertThat(http.grpcFlags(Wiring.VITALS, 18082)).isEmpty();
        assertThat(http.pod(Wiring.VITALS, 18080, 18081, 18082)).isEqualTo(http.pod(Wiring.VITALS, 18080, 18081));
        assertThat(ReplayCatalog.select(List.of("grpc"))).containsExactly(c);
    }

    @Test
    void bothWiringsGetTheSameProbeTimingAndTheSameActions() {
        for (ReplayCase c : ReplayCatalog.all()) {
            PodSpec naive = c.pod(Wiring.NAIVE, 18080, 18081);
            PodSpec vitals = c.pod(Wiring.VITALS, 18080, 18081);
            for (ProbeType t : List.of(ProbeType.LIVENESS, ProbeType.READINESS)) {
                ProbeSpec n = naive.probe(t).orElseThrow();
                ProbeSpec v = vitals.probe(t).orElseThrow();
                assertThat(List.of(n.periodSeconds(), n.timeoutSeconds(), n.failureThreshold(), n.initialDelaySeconds()))
                        .as(c.name() + " " + t).isEqualTo(List.of(v.periodSeconds(), v.timeoutSeconds(), v.failureThreshold(),
                                v.initialDelaySeconds()));
            }
            if (!c.scenario().equals("slow-start")) {
                assertThat(c.startup(Wiring.NAIVE)).as(c.name()).isEqualTo(c.startup(Wiring.VITALS));
            }
            assertThat(c.expectations(Wiring.VITALS)).as(c.name()).isNotEmpty();
        }
    }

    @Test
    void naiveProbesTheAppPortAndVitalsTheProbePort() {
        ReplayCase c = only("incident");
        PodSpec naive = c.pod(Wiring.NAIVE, 18080, 18081);
        PodSpec vitals = c.pod(Wiring.VITALS, 18080, 18081);
        assertThat(http(naive, ProbeType.LIVENESS).port().number()).isEqualTo(18080);
        assertThat(http(naive, ProbeType.LIVENESS).path()).isEqualTo("/healthz");
        assertThat(http(naive, ProbeType.READINESS).path()).isEqualTo("/healthz");
        assertThat(http(vitals, ProbeType.LIVENESS).port().number()).isEqualTo(18081);
        assertThat(http(vitals, ProbeType.LIVENESS).path()).isEqualTo("/livez");
        assertThat(http(vitals, ProbeType.READINESS).path()).isEqualTo("/readyz");
        assertThat(http(vitals, ProbeType.STARTUP).path()).isEqualTo("/startupz");
        assertThat(vitals.terminationGracePeriodSeconds()).isEqualTo(ReplayCase.GRACE_SECONDS);
    }

    @Test
    void slowStartGivesOnlyVitalsAStartupProbeWithABudget() {
        ReplayCase c = only("slow-start");
        // the start-up delay alone is twice the naive liveness budget (period 1 s × failureThreshold 3)
        assertThat(c.demoFlags()).containsSequence("--startup-delay-ms", "6000");
        assertThat(c.liveness().periodSeconds()).isEqualTo(1);
        assertThat(c.liveness().failureThreshold()).isEqualTo(3);
        assertThat(c.startup(Wiring.NAIVE)).isEmpty();
        ProbeTiming s = c.startup(Wiring.VITALS).orElseThrow();
        // three times the whole start-up: the delay plus the nominal 2 s boot
        assertThat(s.periodSeconds() * s.failureThreshold()).isGreaterThanOrEqualTo(3 * (6 + 2));
    }

    @Test
    void everyExpectationHasATwofoldMarginForAnyBootTimeThatFitsTheLongestRun() {
        for (double boot : new double[] {0.3, 1, 2, 5, 10, 20}) {
            // cpu-limit is sized from its own boot under the limit: given the same value here
            for (ReplayCase c : ReplayCatalog.all(Sizing.given(boot), Sizing.given(boot), java.util.Optional.empty())) {
                assertThat(c.skip()).as(c.name() + " at boot " + boot).isEmpty();
                assertThat(c.margins()).as(c.name()).isNotEmpty();
                for (Margin m : c.margins()) {
                    assertThat(m.ratio()).as(c.name() + " at boot " + boot + ": " + m.describe()).isGreaterThanOrEqualTo(2.0);
                }
                assertThat(c.duration()).as(c.name()).isLessThanOrEqualTo(Sizing.MAX_RUN);
                c.startupBudgetSeconds(Wiring.VITALS).ifPresent(budget ->
                        assertThat(budget).as(c.name() + " startup budget").isGreaterThanOrEqualTo(2 * boot));
            }
        }
    }

    @Test
    void aBootTooSlowForTheLongestRunSkipsTheScenariosWithTheReason() {
        List<ReplayCase> cases = ReplayCatalog.all(Sizing.given(90));
        assertThat(cases).allSatisfy(c -> assertThat(c.skip()).as(c.name()).isPresent());
        assertThat(cases.get(0).skip().orElseThrow()).contains("needs a").contains("longest allowed 150 s");
    }

    @Test
    void runLengthsGrowWithTheMeasuredBoot() {
        ReplayCase quick = ReplayCatalog.all(Sizing.given(1)).get(0);
        ReplayCase slow = ReplayCatalog.all(Sizing.given(12)).get(0);
        assertThat(slow.duration()).isGreaterThan(quick.duration());
        assertThat(slow.startup(Wiring.VITALS).orElseThrow().failureThreshold())
                .isGreaterThan(quick.startup(Wiring.VITALS).orElseThrow().failureThreshold());
        assertThat(slow.readyAllowanceSeconds()).isEqualTo(36.0);
    }

    @Test
    void sizingAndMarginsRejectNonsenseWithTheBound() {
        assertThatThrownBy(() -> Sizing.given(0)).hasMessageContaining("boot time must be > 0");
        assertThatThrownBy(() -> Sizing.given(Double.NaN)).hasMessageContaining("boot time must be > 0");
        assertThatThrownBy(() -> Sizing.measured(List.of())).hasMessageContaining("at least one boot time");
        assertThatThrownBy(() -> new Margin("x", 0, 1, 2, false)).hasMessageContaining("margin 'x'");
        Margin m = new Margin("startup budget vs boot", 30, 2, 2, false);
        assertThat(m.holds()).isTrue();
        assertThat(m.describe()).isEqualTo("startup budget vs boot: 30s vs 2s = 15.0x (needs 2x)");
        assertThat(new Margin("x", 3, 2, 2, true).holds()).isFalse();
        assertThat(Sizing.measured(List.of(1.5, 2.5, 2.0)).bootSeconds()).isEqualTo(2.5);
    }

    @Test
    void stallHasAFreezeThatRestartsNeitherAndADeadlockThatRestartsBoth() {
        ReplayCase stall = only("stall");
        assertThat(stall.steps()).singleElement().satisfies(f -> {
            assertThat(f.length()).isEqualTo(Duration.ofMillis(1500)); // a kill needs 3 s: 2x headroom
            assertThat(f.start()).containsExactly(new Action.Pause());
            assertThat(f.end()).containsExactly(new Action.Resume());
        });
        assertThat(stall.expectations(Wiring.NAIVE)).extracting(RunExpectation::text).containsExactly("restarts == 0");
        assertThat(stall.expectations(Wiring.VITALS)).extracting(RunExpectation::text).containsExactly("restarts == 0");
        ReplayCase dl = only("stall-deadlock");
        assertThat(dl.demoFlags()).contains("--chaos");
        assertThat(dl.steps()).singleElement().satisfies(p -> assertThat(p.start()).singleElement()
                .isInstanceOfSatisfying(Action.Load.class, l -> {
                    assertThat(l.spec().method()).isEqualTo("POST");
                    assertThat(l.spec().path()).isEqualTo("/chaos/deadlock-workers");
                }));
        assertThat(dl.expectations(Wiring.VITALS)).extracting(RunExpectation::text).containsExactly("restarts >= 1");
        assertThat(only("incident").expectations(Wiring.VITALS)).extracting(RunExpectation::text)
                .containsExactly("restarts == 0", "liveness p99 <= timeout / 2");
    }

    @Test
    void selectionByScenarioByRowAndAll() {
        assertThat(ReplayCatalog.select(List.of())).isEqualTo(ReplayCatalog.all());
        assertThat(ReplayCatalog.select(List.of("all"))).isEqualTo(ReplayCatalog.all());
        assertThat(ReplayCatalog.select(List.of("incident"))).extracting(ReplayCase::name).containsExactly("incident", "incident-burst");
        assertThat(ReplayCatalog.select(List.of("stall", "incident-burst"))).extracting(ReplayCase::name)
                .containsExactly("incident-burst", "stall", "stall-deadlock");
        assertThat(ReplayCatalog.all()).extracting(ReplayCase::scenario).containsOnlyElementsOf(ReplayCatalog.SCENARIOS);
    }

    @Test
    void anUnknownScenarioIsNamedWithTheKnownOnes() {
        assertThatThrownBy(() -> ReplayCatalog.select(List.of("incidnet")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown scenario 'incidnet'")
                .hasMessageContaining("incident, db-outage, slow-start, stall");
    }

    @Test
    void badActionsAndTimingsAreRejectedWithTheBound() {
        assertThatThrownBy(() -> ReplayStep.load(Duration.ofSeconds(1), 0, Duration.ofSeconds(1), Duration.ofSeconds(1)))
                .hasMessageContaining("clients must be 1-1000, was 0");
        assertThatThrownBy(() -> ReplayStep.dbOutage(Duration.ofSeconds(-1), Duration.ofSeconds(1)))
                .hasMessageContaining("after must be ≥ 0");
        assertThatThrownBy(() -> ReplayStep.post(Duration.ZERO, "chaos")).hasMessageContaining("must start with '/'");
        assertThatThrownBy(() -> new ProbeTiming(0, 1, 3)).hasMessageContaining("must be ≥ 1");
        assertThatThrownBy(() -> ReplayCase.builder("Bad Name", "x")).hasMessageContaining("lower-case");
        assertThatThrownBy(() -> ReplayCase.builder("x", "x").duration(Duration.ofSeconds(1)))
                .hasMessageContaining("at least 5 s");
    }
}
