package dev.vitals.kubesim.replay;

import static dev.vitals.kubesim.replay.RunExpectation.crashLoopBackOff;
import static dev.vitals.kubesim.replay.RunExpectation.kills;
import static dev.vitals.kubesim.replay.RunExpectation.notReadyDuring;
import static dev.vitals.kubesim.replay.RunExpectation.readyAtEnd;
import static dev.vitals.kubesim.replay.RunExpectation.restarts;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The replay scenarios (DESIGN.md section 1), each a pair of runs per case: naive and Vitals.
 *
 * <ul>
 *   <li>{@code incident}: the incident's liveness probe (period 2 s, timeout 3 s,
 *       failureThreshold 3) against 40 workers and exports that hold a worker 4–12 s, with
 *       100 clients re-sending exports for 40 s. Naive must restart (probe queued behind the
 *       exports: about (100 − 40) × 8 s ÷ 40 ≈ 12 s of wait); Vitals must not. Second row,
 *       {@code incident-burst}: the literal burst, 53 exports at concurrency 50, under
 *       kubelet's default 1 s timeout (≈ 2 s of queue wait); Vitals must not restart, the naive
 *       figure is shown as measured.</li>
 *   <li>{@code db-outage}: the database cut at the fault proxy for 20 s. Naive restarts (its
 *       liveness pings the database); Vitals does not, is not ready during the outage and is
 *       ready again after it.</li>
 *   <li>{@code slow-start}: {@code --startup-delay-ms 2200} with liveness period 1 s,
 *       failureThreshold 3 (a 3 s budget that start-up plus JVM boot exceeds); naive has no
 *       startup probe and crash-loops; Vitals has a startup probe with a 30 s budget and
 *       neither restarts nor stays unready.</li>
 *   <li>{@code stall}: the process frozen with SIGSTOP for 2 s: neither restarts (a pause is
 *       not a fault a restart cures). Second row, {@code stall-deadlock}: the demo's workers
 *       deadlocked ({@code --chaos}, {@code POST /chaos/deadlock-workers}): both restart,
 *       Vitals through its deadlock and progress liveness checks (it never hides a stuck
 *       application).</li>
 *   <li>{@code agent} (row {@code incident-agent}): the incident's load on the naive demo, unchanged,
 *       with {@code -javaagent:vitals-agent.jar} attached and kubelet probing the agent's port,
 *       beside the Vitals wiring: no restart for either (liveness from the JVM; readiness from the demo's own {@code /healthz}, polled
 *       in the background, fails while the exports hold every worker).</li>
 * </ul>
 */
public final class ReplayCatalog {
    /** The scenario names, in the order {@code all} runs them. */
    public static final List<String> SCENARIOS = List.of("incident", "db-outage", "slow-start", "stall", "agent");

    private static final List<ReplayCase> ALL = build();

    private ReplayCatalog() {
    }

    /** @return every case, in order */
    public static List<ReplayCase> all() {
        return ALL;
    }

    /**
     * @param names scenario names ({@code incident}, …), case names ({@code incident-burst}, …)
     *        or {@code all}; empty means all
     * @return the cases, in catalog order, each once
     * @throws IllegalArgumentException naming the unknown name and the known ones
     */
    public static List<ReplayCase> select(List<String> names) {
        if (names.isEmpty() || names.contains("all")) {
            return ALL;
        }
        Set<ReplayCase> out = new LinkedHashSet<>();
        for (String n : names) {
            boolean found = false;
            for (ReplayCase c : ALL) {
                if (c.scenario().equals(n) || c.name().equals(n)) {
                    found = true;
                }
            }
            if (!found) {
                throw new IllegalArgumentException("unknown scenario '" + n + "': expected one of " + String.join(", ", SCENARIOS)
                        + ", all (or a single row: " + String.join(", ", caseNames()) + ")");
            }
        }
        for (ReplayCase c : ALL) {
            if (names.contains(c.scenario()) || names.contains(c.name())) {
                out.add(c);
            }
        }
        return List.copyOf(out);
    }

    private static List<String> caseNames() {
        List<String> n = new ArrayList<>();
        for (ReplayCase c : ALL) {
            n.add(c.name());
        }
        return n;
    }

    private static List<ReplayCase> build() {
        ProbeTiming incident = new ProbeTiming(2, 3, 3);
        ProbeTiming incidentDefaultTimeout = new ProbeTiming(2, 1, 3);
        ProbeTiming fast = new ProbeTiming(1, 1, 3);
        // Where start-up is not the subject, both wirings get the same generous startup probe, so
        // a slow JVM start on a busy machine is never mistaken for the failure under test.
        ProbeTiming boot = new ProbeTiming(1, 1, 60);
        String[] exports = {"--workers", "40", "--export-min-ms", "4000", "--export-max-ms", "12000"};
        List<ReplayCase> cases = new ArrayList<>();
        cases.add(ReplayCase.builder("incident", "incident")
                .title("the incident's probe; 40 workers, exports hold a worker 4-12 s; 100 clients re-send exports for 40 s")
                .demoFlags(exports)
                .startup(Wiring.NAIVE, boot).startup(Wiring.VITALS, boot)
                .liveness(incident).readiness(incident)
                .action(new ReplayAction.Load(Duration.ofSeconds(2), 100, Duration.ofSeconds(40), Duration.ofSeconds(60)))
                .duration(Duration.ofSeconds(58))
                .expect(Wiring.NAIVE, restarts(">=", 1))
                .expect(Wiring.VITALS, restarts("==", 0))
                .build());
        cases.add(ReplayCase.builder("incident-burst", "incident")
                .title("the incident's literal burst: 53 exports at concurrency 50, kubelet's default 1 s probe timeout")
                .demoFlags(exports)
                .startup(Wiring.NAIVE, boot).startup(Wiring.VITALS, boot)
                .liveness(incidentDefaultTimeout).readiness(incidentDefaultTimeout)
                .action(new ReplayAction.Burst(Duration.ofSeconds(1), 53, 50, Duration.ofSeconds(60)))
                .duration(Duration.ofSeconds(40))
                .expect(Wiring.VITALS, restarts("==", 0))
                .build());
        cases.add(ReplayCase.builder("db-outage", "db-outage")
                .title("the database cut at the fault proxy for 20 s (new connections refused, open ones reset)")
                .startup(Wiring.NAIVE, boot).startup(Wiring.VITALS, boot)
                .liveness(incident).readiness(incident)
                .action(new ReplayAction.DbOutage(Duration.ofSeconds(3), Duration.ofSeconds(20)))
                .duration(Duration.ofSeconds(44))
                .expect(Wiring.NAIVE, restarts(">=", 1))
                .expect(Wiring.VITALS, restarts("==", 0))
                .expect(Wiring.VITALS, notReadyDuring("db-outage"))
                .expect(Wiring.VITALS, readyAtEnd())
                .build());
        cases.add(ReplayCase.builder("slow-start", "slow-start")
                .title("start-up takes 2.2 s plus JVM boot; liveness period 1 s, failureThreshold 3; "
                        + "startup probe (30 s budget) for Vitals only")
                .demoFlags("--startup-delay-ms", "2200")
                .liveness(fast).readiness(fast)
                .startup(Wiring.VITALS, new ProbeTiming(1, 1, 30))
                .duration(Duration.ofSeconds(20))
                .expect(Wiring.NAIVE, kills(">=", 2))
                .expect(Wiring.NAIVE, crashLoopBackOff())
                .expect(Wiring.VITALS, restarts("==", 0))
                .expect(Wiring.VITALS, readyAtEnd())
                .build());
        cases.add(ReplayCase.builder("stall", "stall")
                .title("the process frozen (SIGSTOP) for 2 s; liveness period 1 s, timeout 1 s, failureThreshold 3")
                .demoFlags("--stall-after-ms", "5000")
                .startup(Wiring.NAIVE, boot).startup(Wiring.VITALS, boot)
                .liveness(fast).readiness(fast)
                .action(new ReplayAction.Freeze(Duration.ofSeconds(3), Duration.ofSeconds(2)))
                .duration(Duration.ofSeconds(20))
                .expect(Wiring.NAIVE, restarts("==", 0))
                .expect(Wiring.VITALS, restarts("==", 0))
                .build());
        cases.add(ReplayCase.builder("stall-deadlock", "stall")
                .title("the demo's workers deadlocked (--chaos, POST /chaos/deadlock-workers): a stuck application")
                .demoFlags("--chaos", "--stall-after-ms", "5000")
                .startup(Wiring.NAIVE, boot).startup(Wiring.VITALS, boot)
                .liveness(fast).readiness(fast)
                .action(new ReplayAction.Post(Duration.ofSeconds(3), "/chaos/deadlock-workers"))
                .duration(Duration.ofSeconds(26))
                .expect(Wiring.NAIVE, restarts(">=", 1))
                .expect(Wiring.VITALS, restarts(">=", 1))
                .build());
        cases.add(ReplayCase.builder("incident-agent", "agent")
                .title("the incident's load on the naive demo, unchanged, with -javaagent:vitals-agent.jar (kubelet probes the agent)")
                .demoFlags(exports)
                .wirings(Wiring.NAIVE_AGENT, Wiring.VITALS)
                .startup(Wiring.NAIVE, boot).startup(Wiring.NAIVE_AGENT, boot).startup(Wiring.VITALS, boot)
                .liveness(incident).readiness(incident)
                .action(new ReplayAction.Load(Duration.ofSeconds(2), 100, Duration.ofSeconds(40), Duration.ofSeconds(60)))
                .duration(Duration.ofSeconds(58))
                .expect(Wiring.NAIVE_AGENT, restarts("==", 0))
                .expect(Wiring.VITALS, restarts("==", 0))
                .build());
        return List.copyOf(cases);
    }
}
