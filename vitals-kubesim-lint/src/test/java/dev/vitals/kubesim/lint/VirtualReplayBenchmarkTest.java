package dev.vitals.kubesim.lint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vitals.kubesim.Rig;
import dev.vitals.kubesim.Simulation;
import dev.vitals.kubesim.model.Kubelet;
import dev.vitals.kubesim.model.KubeletOptions;
import dev.vitals.kubesim.model.PodSpec;
import dev.vitals.kubesim.model.ProbeOutcome;
import dev.vitals.kubesim.model.ProbeType;
import dev.vitals.kubesim.model.RestartPolicy;
import dev.vitals.kubesim.model.SimEvent;
import dev.vitals.kubesim.model.SimTime;
import dev.vitals.kubesim.model.VirtualTime;
import dev.vitals.kubesim.probe.ScriptedProbes;
import dev.vitals.kubesim.result.SimulationResult;
import dev.vitals.kubesim.runtime.ScriptedContainer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Benchmark (tag {@code benchmark}, left out of the default build): the virtual-clock replay
 * {@code vitals lint} runs (the kubelet model on a {@link VirtualTime} with a scripted
 * container and scripted probes), over one simulated hour, for one pod and for 1,000 pods on
 * one clock (the shape the fleet simulation runs). Reports microseconds of CPU per pod-hour,
 * and a reference measured in the same run: the same number of bare timer tasks on the same
 * clock, with no model. Run:
 * <pre>{@code mvn -B -pl vitals-kubesim -am test -Dvitals.excludedTestGroups= -Dgroups=benchmark \
 *     -Dtest=VirtualReplayBenchmarkTest -Dsurefire.failIfNoSpecifiedTests=false}</pre>
 * Results go to stdout and {@code target/virtual-replay-benchmark.txt}. No timing asserts.
 */
@Tag("benchmark")
class VirtualReplayBenchmarkTest {
    private static final Duration HOUR = Duration.ofHours(1);

    /** startup 2 s × 30, liveness 10 s × 3, readiness 5 s × 1: a common production shape. */
    private static PodSpec pod() {
        return Rig.pod(Rig.probe(ProbeType.STARTUP, 0, 2, 1, 1, 30), Rig.probe(ProbeType.LIVENESS, 0, 10, 1, 1, 3),
                Rig.probe(ProbeType.READINESS, 0, 5, 1, 1, 1)).with(RestartPolicy.ALWAYS, 30);
    }

    /** Starts in 8 s; every instance hangs from 20 to 21 min of its run (a liveness kill), else healthy. */
    private static ProbeOutcome answer(dev.vitals.kubesim.model.ProbeSpec p, int instance, double sinceInstance,
            double sinceStart) {
        if (sinceInstance < 8) {
            return ScriptedProbes.fail();
        }
        if (sinceInstance >= 1200 && sinceInstance < 1260) {
            return ScriptedProbes.timeout(p);
        }
        return ScriptedProbes.ok();
    }

    @Test
    void onePodOverOneHourAndAThousandPodsOnOneClock() throws Exception {
        StringBuilder report = new StringBuilder();
        // warm-up
        for (int i = 0; i < 30; i++) {
            onePodHour();
            thousandPods(20);
            reference(20, 2000);
        }
        // one pod, one hour, through Simulation (what lint's KillPrediction runs), repeated
        int reps = 200;
        long events = 0;
        long t0 = cpu();
        for (int i = 0; i < reps; i++) {
            events += onePodHour();
        }
        double onePodUs = (cpu() - t0) / 1e3 / reps;
        long eventsPerPodHour = events / reps;
        // 1,000 pods on one clock for one hour, driving Kubelet directly
        int pods = 1000;
        long[] fleetEvents = new long[1];
        t0 = cpu();
        fleetEvents[0] = thousandPods(pods);
        double fleetUs = (cpu() - t0) / 1e3 / pods;
        // reference: bare timer tasks, as many per pod-hour as the model scheduled
        long tasksPerPodHour = tasksPerPodHour();
        t0 = cpu();
        reference(pods, tasksPerPodHour);
        double refUs = (cpu() - t0) / 1e3 / pods;
        double load = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        report.append(String.format(Locale.ROOT, "virtual-clock replay, 1 simulated hour per pod, CPU time of the running thread (load average %.2f)%n", load))
                .append(String.format(Locale.ROOT, "  one pod (Simulation, %d reps): %.0f µs per pod-hour, %d events per pod-hour%n",
                        reps, onePodUs, eventsPerPodHour))
                .append(String.format(Locale.ROOT, "  1,000 pods on one clock (Kubelet): %.0f µs per pod-hour (%d events in all)%n",
                        fleetUs, fleetEvents[0]))
                .append(String.format(Locale.ROOT, "  reference, %d bare timer tasks per pod-hour on one clock: %.0f µs per pod-hour%n",
                        tasksPerPodHour, refUs))
                .append(String.format(Locale.ROOT, "  ratios: one pod / reference %.1f×, 1,000 pods / reference %.1f×%n",
                        onePodUs / refUs, fleetUs / refUs));
        System.out.print(report);
        Path out = Path.of("target", "virtual-replay-benchmark.txt");
        try {
            Files.createDirectories(out.getParent());
            Files.writeString(out, report);
        } catch (IOException ignored) {
            // stdout has it
        }
        assertThat(eventsPerPodHour).isGreaterThan(700); // probes ran for the whole hour
        assertThat(fleetEvents[0]).isGreaterThan(700L * pods);
    }

    /** @return this thread's CPU time in nanoseconds (wall time is meaningless on a machine at load 20+) */
    private static long cpu() {
        return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }

    /** @return events of one pod over one hour; each instance is killed once at about 20 min */
    private static long onePodHour() throws InterruptedException {
        VirtualTime vt = new VirtualTime();
        ScriptedContainer c = new ScriptedContainer(vt);
        long[] n = new long[1];
        SimulationResult r = Simulation.builder(pod()).time(vt).runtime(c)
                .probeExecutor(new ScriptedProbes(vt, c, VirtualReplayBenchmarkTest::answer)).listener(e -> n[0]++)
                .duration(HOUR).build().run();
        if (r.restarts() < 2) {
            throw new AssertionError("expected liveness kills, got " + r.restarts() + " restarts");
        }
        return n[0];
    }

    private static long thousandPods(int pods) {
        VirtualTime vt = new VirtualTime();
        long[] n = new long[1];
        Kubelet[] fleet = new Kubelet[pods];
        for (int i = 0; i < pods; i++) {
            ScriptedContainer c = new ScriptedContainer(vt);
            fleet[i] = new Kubelet(pod(), KubeletOptions.defaults(), vt, c,
                    new ScriptedProbes(vt, c, VirtualReplayBenchmarkTest::answer), (SimEvent e) -> n[0]++);
            fleet[i].start();
        }
        vt.advance(HOUR);
        for (Kubelet k : fleet) {
            k.stop();
        }
        return n[0];
    }

    /** @return how many tasks the model schedules for one pod over one hour */
    private static long tasksPerPodHour() {
        long[] scheduled = new long[1];
        VirtualTime inner = new VirtualTime();
        SimTime vt = new SimTime() {
            @Override
            public long wallTime() {
                return inner.wallTime();
            }

            @Override
            public long monotonicTime() {
                return inner.monotonicTime();
            }

            @Override
            public Cancellable schedule(long delayNanos, Runnable task) {
                scheduled[0]++;
                return inner.schedule(delayNanos, task);
            }

            @Override
            public void awaitUntil(long monotonicNanos) {
                inner.awaitUntil(monotonicNanos);
            }

            @Override
            public void runAndWait(Runnable task) {
                task.run();
            }

            @Override
            public void offload(Runnable task) {
                task.run();
            }

            @Override
            public void close() {
                inner.close();
            }
        };
        ScriptedContainer c = new ScriptedContainer(vt);
        Kubelet k = new Kubelet(pod(), KubeletOptions.defaults(), vt, c, new ScriptedProbes(vt, c,
                VirtualReplayBenchmarkTest::answer), e -> { });
        k.start();
        inner.advance(HOUR);
        return scheduled[0];
    }

    /** The same number of timer tasks per pod, evenly spread over the hour, doing nothing. */
    private static void reference(int pods, long tasksPerPod) {
        VirtualTime vt = new VirtualTime();
        long step = HOUR.toNanos() / tasksPerPod;
        long[] ran = new long[1];
        for (int p = 0; p < pods; p++) {
            long offset = p;
            Runnable[] tick = new Runnable[1];
            tick[0] = () -> {
                ran[0]++;
                vt.schedule(step, tick[0]);
            };
            vt.schedule(offset, tick[0]);
        }
        vt.advance(HOUR);
        if (ran[0] < pods) {
            throw new AssertionError("reference did not run");
        }
    }
}
