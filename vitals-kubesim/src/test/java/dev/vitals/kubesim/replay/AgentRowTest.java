package dev.vitals.kubesim.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class AgentRowTest {
    private static ReplayCase row() {
        return ReplayCatalog.all().stream().filter(c -> c.name().equals("incident-agent")).findFirst().orElseThrow();
    }

    @Test
    void incidentAgentRunsTheNaiveDemoWithTheAgentBesideVitalsUnderTheIncidentsLoad() {
        ReplayCase agent = row();
        ReplayCase incident = ReplayCatalog.all().stream().filter(c -> c.name().equals("incident")).findFirst().orElseThrow();
        assertThat(agent.scenario()).isEqualTo("agent");
        assertThat(agent.wirings()).containsExactly(Wiring.NAIVE_AGENT, Wiring.VITALS);
        assertThat(agent.demoFlags()).isEqualTo(incident.demoFlags());
        assertThat(agent.steps()).isEqualTo(incident.steps());
        assertThat(agent.liveness()).isEqualTo(incident.liveness());
        assertThat(agent.expectations(Wiring.NAIVE_AGENT)).extracting(RunExpectation::text).containsExactly("restarts == 0", "liveness p99 <= timeout / 2");
        assertThat(ReplayCatalog.select(List.of("agent"))).containsExactly(agent);
        assertThat(ReplayCatalog.select(List.of("incident"))).doesNotContain(agent);
        assertThat(incident.wirings()).containsExactly(Wiring.NAIVE, Wiring.VITALS);
    }

    @Test
    void kubeletProbesTheAgentsPortNotTheApplications() {
        PodSpec pod = row().pod(Wiring.NAIVE_AGENT, 18080, 18081);
        for (ProbeType t : List.of(ProbeType.STARTUP, ProbeType.LIVENESS, ProbeType.READINESS)) {
            ProbeSpec p = pod.probe(t).orElseThrow();
            ProbeHandler.HttpGet get = (ProbeHandler.HttpGet) p.handler();
            assertThat(get.path()).as(t.toString()).isIn("/startupz", "/livez", "/readyz");
            assertThat(get.port().number()).as(t.toString()).isEqualTo(18081);
        }
        assertThat(Wiring.NAIVE_AGENT.flag()).isEqualTo("naive-agent");
        assertThat(Wiring.NAIVE_AGENT.demoWiring()).isEqualTo("naive");
    }

    @Test
    void theAgentJarIsFoundBesideTheDemoModule() {
        assertThat(AgentJar.besideDemo(Path.of("/repo/vitals-demo/target/vitals-demo.jar")))
                .isEqualTo(Path.of("/repo/vitals-agent/target/vitals-agent.jar"));
        assertThat(AgentJar.besideDemo(Path.of("/opt/vitals/vitals-demo.jar"))).isEqualTo(Path.of("/opt/vitals/vitals-agent.jar"));
    }
}
