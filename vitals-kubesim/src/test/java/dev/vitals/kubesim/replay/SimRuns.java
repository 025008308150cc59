package dev.vitals.kubesim.replay;

import dev.vitals.kubesim.model.ProbeSpec;

import dev.vitals.kubesim.Simulation;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeOutcome;
import dev.vitals.kubesim.model.VirtualTime;
import dev.vitals.kubesim.probe.ScriptedProbes;
import dev.vitals.kubesim.result.SimulationResult;
import dev.vitals.kubesim.runtime.ScriptedContainer;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Real kubelet-model results on a virtual clock, for the replay's result and report tests. */
final class SimRuns {
    private SimRuns() {
    }

    /** A script: answers per probe type and simulated second. */
    interface Answers {
        ProbeOutcome answer(String probe, double sinceStart, dev.vitals.kubesim.model.ProbeSpec spec);
    }

    static SimulationResult simulate(PodSpec pod, Duration duration, Answers answers) throws InterruptedException {
        VirtualTime time = new VirtualTime();
        ScriptedContainer container = new ScriptedContainer(time);
        ScriptedProbes probes = new ScriptedProbes(time, container,
                (spec, instance, sinceInstance, sinceStart) -> answers.answer(spec.type().label(), sinceStart, spec));
        return Simulation.builder(pod).time(time).runtime(container).probeExecutor(probes).duration(duration).build().run();
    }

    static RunRecord record(ReplayCase c, Wiring w, SimulationResult r, Map<String, double[]> windows) {
        return new RunRecord(c, w, r, c.pod(w, 18080, 18081), List.of(new RunRecord.Note(1.0, "first Ready")), windows,
                List.of("java", "-jar", "vitals-demo.jar", "--wiring", w.flag()));
    }
}
