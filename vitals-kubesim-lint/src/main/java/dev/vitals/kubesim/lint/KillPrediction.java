package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.Simulation;
import dev.vitals.kubesim.model.Durations;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.model.SimEvent;
import dev.vitals.kubesim.model.VirtualTime;
import dev.vitals.kubesim.probe.ScriptedProbes;
import dev.vitals.kubesim.runtime.ScriptedContainer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * When the kubelet first kills a container that answers no probe until it has run
 * {@code startupTime}: the kubelet model replayed on a {@link VirtualTime}, the same model
 * {@code vitals simulate} runs, so lint and simulate predict the same kill times (case C11, C20).
 *
 * @param killAt seconds from the container's creation to the first kill, if any
 * @param killer the probe that killed
 * @param firstProbeAt seconds to the killer's first probe
 */
record KillPrediction(Optional<Double> killAt, ProbeType killer, double firstProbeAt) {

    /**
     * @param pod the probes
     * @param startupTime the application's start-up time
     * @return the first kill, if one happens before the application is up
     */
    public static KillPrediction of(PodSpec pod, Duration startupTime) {
        double need = Durations.seconds(startupTime);
        VirtualTime vt = new VirtualTime();
        ScriptedContainer c = new ScriptedContainer(vt);
        ScriptedProbes probes = new ScriptedProbes(vt, c, (p, inst, since, t) -> since < need ? ScriptedProbes.fail()
                : ScriptedProbes.ok());
        List<SimEvent> events = new ArrayList<>();
        try {
            Simulation.builder(pod).time(vt).runtime(c).probeExecutor(probes).listener(events::add)
                    .duration(startupTime.plusSeconds(1)).build().run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        for (SimEvent e : events) {
            if (e.type() == SimEvent.Type.KILL) {
                ProbeType killer = e.probe().orElseThrow();
                double first = events.stream().filter(x -> x.type() == SimEvent.Type.PROBE && x.probe().orElse(null) == killer)
                        .mapToDouble(x -> Durations.seconds(x.at()) - x.latency().map(Durations::seconds).orElse(0.0)).min().orElse(Durations.seconds(e.at()));
                return new KillPrediction(Optional.of(Durations.seconds(e.at())), killer, first);
            }
        }
        return new KillPrediction(Optional.empty(), ProbeType.LIVENESS, 0);
    }
}
