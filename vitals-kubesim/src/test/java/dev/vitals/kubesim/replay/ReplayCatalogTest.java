package dev.vitals.kubesim.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
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
        assertThat(c.actions()).singleElement().isInstanceOfSatisfying(ReplayAction.Load.class, l -> {
            assertThat(l.clients()).isEqualTo(100);
            assertThat(l.sustain()).isEqualTo(Duration.ofSeconds(40));
        });
        ReplayCase burst = only("incident-burst");
        assertThat(burst.liveness().timeoutSeconds()).isEqualTo(1); // kubelet's default timeout
        assertThat(burst.actions()).singleElement().isInstanceOfSatisfying(ReplayAction.Burst.class, b -> {
            assertThat(b.count()).isEqualTo(53);
            assertThat(b.concurrency()).isEqualTo(50);
        });
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
        assertThat(c.demoFlags()).containsSequence("--startup-delay-ms", "2200");
        assertThat(c.liveness().periodSeconds()).isEqualTo(1);
        assertThat(c.liveness().failureThreshold()).isEqualTo(3);
        assertThat(c.startup(Wiring.NAIVE)).isEmpty();
        ProbeTiming s = c.startup(Wiring.VITALS).orElseThrow();
        assertThat(s.periodSeconds() * s.failureThreshold()).isGreaterThanOrEqualTo(10);
        // the naive budget, failureThreshold × period, is shorter than the start-up alone plus a JVM boot
        assertThat(c.liveness().periodSeconds() * c.liveness().failureThreshold()).isLessThan(3 + 1);
    }

    @Test
    void stallHasAFreezeThatRestartsNeitherAndADeadlockThatRestartsBoth() {
        ReplayCase stall = only("stall");
        assertThat(stall.actions()).singleElement().isInstanceOf(ReplayAction.Freeze.class);
        assertThat(stall.expectations(Wiring.NAIVE)).extracting(RunExpectation::text).containsExactly("restarts == 0");
        assertThat(stall.expectations(Wiring.VITALS)).extracting(RunExpectation::text).containsExactly("restarts == 0");
        ReplayCase dl = only("stall-deadlock");
        assertThat(dl.demoFlags()).contains("--chaos");
        assertThat(dl.actions()).singleElement().isInstanceOfSatisfying(ReplayAction.Post.class,
                p -> assertThat(p.path()).isEqualTo("/chaos/deadlock-workers"));
        assertThat(dl.expectations(Wiring.VITALS)).extracting(RunExpectation::text).containsExactly("restarts >= 1");
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
        assertThatThrownBy(() -> new ReplayAction.Load(Duration.ofSeconds(1), 0, Duration.ofSeconds(1), Duration.ofSeconds(1)))
                .hasMessageContaining("clients must be 1-1000, was 0");
        assertThatThrownBy(() -> new ReplayAction.DbOutage(Duration.ofSeconds(-1), Duration.ofSeconds(1)))
                .hasMessageContaining("after must be ≥ 0");
        assertThatThrownBy(() -> new ReplayAction.Post(Duration.ZERO, "chaos")).hasMessageContaining("must start with '/'");
        assertThatThrownBy(() -> new ProbeTiming(0, 1, 3)).hasMessageContaining("must be ≥ 1");
        assertThatThrownBy(() -> ReplayCase.builder("Bad Name", "x")).hasMessageContaining("lower-case");
        assertThatThrownBy(() -> ReplayCase.builder("x", "x").duration(Duration.ofSeconds(1)))
                .hasMessageContaining("at least 5 s");
    }
}
