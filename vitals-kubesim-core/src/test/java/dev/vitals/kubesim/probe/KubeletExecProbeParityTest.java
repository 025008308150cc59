package dev.vitals.kubesim.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeOutcome;
import dev.vitals.kubesim.model.ProbeResult;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The exec prober held against the kubelet's tests: kubernetes {@code pkg/probe/exec/exec_test.go}
 * (output text) and the {@code $(VAR)} expansion the kubelet applies to exec probe commands
 * ({@code pkg/kubelet/prober/prober_test.go TestNewExecInContainer} expands the command with
 * {@code ExpandContainerCommandOnlyStatic}). Real child processes.
 */
class KubeletExecProbeParityTest {

    private static ProbeSpec exec(List<String> command) {
        return new ProbeSpec(ProbeType.LIVENESS, new ProbeHandler.Exec(command), 0, 5, 10, 1, 3, OptionalLong.empty());
    }

    /** exec_test.go TestExec: the output of success and failure is the command's combined output. */
    @Test
    void execTest_TestExec_outputIsTheCombinedOutput() {
        Prober prober = new Prober("127.0.0.1", Map.of(), "1.36");
        ProbeOutcome ok = prober.probe(exec(List.of("sh", "-c", "echo out; echo err >&2")));
        assertThat(ok.result()).isEqualTo(ProbeResult.SUCCESS);
        assertThat(ok.message()).contains("out\n").contains("err\n");
        ProbeOutcome bad = prober.probe(exec(List.of("sh", "-c", "echo broken; exit 1")));
        assertThat(bad.result()).isEqualTo(ProbeResult.FAILURE);
        assertThat(bad.message()).isEqualTo("broken\n");
    }

    /** prober_test.go TestNewExecInContainer: $(VAR) in the command comes from the container's env; $$ escapes. */
    @Test
    void proberTest_TestNewExecInContainer_commandExpandsVarsFromTheContainerEnv() {
        Prober prober = new Prober("127.0.0.1", Map.of(), "1.36", Map.of("PORT", "8080", "MODE", "live"));
        ProbeOutcome o = prober.probe(exec(List.of("echo", "$(PORT)", "$(MODE)-$(MISSING)", "$$(PORT)")));
        assertThat(o.result()).isEqualTo(ProbeResult.SUCCESS);
        assertThat(o.message()).isEqualTo("8080 live-$(MISSING) $(PORT)\n");
    }
}
