package dev.vitals.kubesim.replay;

import static dev.vitals.kubesim.replay.RunExpectation.crashLoopBackOff;
import static dev.vitals.kubesim.replay.RunExpectation.kills;
import static dev.vitals.kubesim.replay.RunExpectation.livenessHeadroom;
import static dev.vitals.kubesim.replay.RunExpectation.notReadyDuring;
import static dev.vitals.kubesim.replay.RunExpectation.readyAtEnd;
import static dev.vitals.kubesim.replay.RunExpectation.restarts;

import dev.vitals.kubesim.model.Resources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;

/**
 * The replay scenarios (DESIGN.md section 7.2), each a pair of runs per case: naive and Vitals,
 * sized from the demo's boot time measured on this machine ({@link Sizing}). Every expectation
 * has a stated margin of at least 2× on its side ({@code Margin}), printed in the header:
 *
 * <ul>
 *   <li>{@code incident}: the incident's liveness probe (period 2 s, timeout 3 s,
 *       failureThreshold 3) against 40 workers and exports that hold a worker 4–12 s, with
 *       100 clients re-sending exports for 40 s. Naive must restart: the probe waits about
 *       (100 − 40) × 8 s ÷ 40 = 12 s behind the exports, 4× its timeout, for 40 s, 5.7× the 7 s
 *       it takes three failures to kill. Vitals must not, with its liveness p99 at most half the
 *       timeout. Second row, {@code incident-burst}: the literal burst, 53 exports at
 *       concurrency 50, under kubelet's default 1 s timeout; Vitals must not restart (p99 at most
 *       half the timeout), the naive figure is shown as measured.</li>
 *   <li>{@code db-outage}: the database cut at the fault proxy for 20 s: 2.2× the naive wiring's
 *       time to a kill (its liveness pings the database), 2× Vitals' time to not-ready (check
 *       interval, check timeout and three readiness periods); 12 s left after the outage, 2× the
 *       recovery time. Vitals is not ready during the outage, ready after it, never restarted.</li>
 *   <li>{@code slow-start}: a start-up delay of twice the liveness budget (period 1 s ×
 *       failureThreshold 3 = 3 s, so 6 s, plus the JVM's boot); naive has no startup probe and
 *       crash-loops (two kills and the back-off in about 10 s, half the run at most); Vitals has
 *       a startup probe of three times its whole start-up and is Ready within half the run.</li>
 *   <li>{@code stall}: the process frozen (SIGSTOP) for 1.5 s: a kill needs 3 s of failing probes
 *       (2×) and Vitals' stall detection 5 s (3.3×), so neither restarts (a pause is not a fault
 *       a restart cures). Second row, {@code stall-deadlock}: the demo's workers deadlocked
 *       ({@code --chaos}, {@code POST /chaos/deadlock-workers}): both restart, Vitals through its
 *       progress liveness check within about 10 s of a 20 s observation (it never hides a stuck
 *       application).</li>
 *   <li>{@code grpc} ({@code incident-grpc}): the incident's load and probe timing, with the
 *       kubelet probing the Vitals run over gRPC ({@code grpc.health.v1} on the demo's
 *       {@code --grpc-port}: services {@code startup}, {@code liveness}, {@code ""}); the naive
 *       run keeps its HTTP {@code /healthz} on the worker pool (the demo has no gRPC
 *       application server to put a naive gRPC health service on). Vitals must not restart.</li>
 *   <li>{@code agent} (row {@code incident-agent}): the incident's load on the naive demo, unchanged,
 *       with {@code -javaagent:vitals-agent.jar} attached and kubelet probing the agent's port,
 *       beside the Vitals wiring: no restart for either (liveness from the JVM; readiness from the demo's own {@code /healthz}, polled
 *       in the background, fails while the exports hold every worker).</li>
 *   <li>{@code cpu-limit}: the {@code incident} row with each demo instance in a cgroup with a
 *       500m CPU limit ({@link #CPU_LIMIT}), sized from the boot measured under that limit (its
 *       startup budget, Ready allowance and run length), with the same expectations; each run's
 *       CPU used, periods and time throttled are in its record. Where no cgroup can be created
 *       the case is skipped with "limits not applied" and the reason.</li>
 * </ul>
 *
 * <p>Where start-up is not the subject, both wirings get the same startup probe of
 * {@link Sizing#bootStartupThreshold()} seconds (four times the slowest boot measured), and every
 * run allows {@link Sizing#readyAllowanceSeconds()} (three times the slowest boot) for its first Ready
 * before the actions, which are timed from that Ready.
 */
public final class ReplayCatalog {
    /** The scenario names, in the order {@code all} runs them. */
    public static final List<String> SCENARIOS = List.of("incident", "db-outage", "slow-start", "stall", "grpc", "agent",
            "cpu-limit");

    /** The {@code cpu-limit} scenario's container resources: {@code limits.cpu: 500m} (request defaults to it). */
    public static final Resources CPU_LIMIT = new Resources(OptionalLong.of(500), OptionalLong.empty(), OptionalLong.empty());

    /**
     * How much slower the demo is assumed to boot under {@link #CPU_LIMIT} where that boot was not
     * measured (listing, {@code --boot-seconds}, tests): 4×, two cores down to half of one.
     * {@code vitals replay} measures it when it runs {@code cpu-limit}.
     */
    public static final double ASSUMED_LIMIT_SLOWDOWN = 4;

    /**
     * The boot time assumed where nothing was measured (selecting and listing cases, tests):
     * 2 s, a JVM boot on a quiet 2-core machine. {@code vitals replay} always measures.
     */
    public static final Sizing NOMINAL = Sizing.given(2.0);

    /** The incident's liveness and readiness probe: period 2 s, timeout 3 s, failureThreshold 3. */
    private static final ProbeTiming INCIDENT = new ProbeTiming(2, 3, 3);
    /** The incident's probe with kubelet's default 1 s timeout. */
    private static final ProbeTiming INCIDENT_DEFAULT_TIMEOUT = new ProbeTiming(2, 1, 3);
    /** Period 1 s, timeout 1 s, failureThreshold 3. */
    private static final ProbeTiming FAST = new ProbeTiming(1, 1, 3);
    /** The demo's workers, and exports that hold one 4-12 s. */
    private static final String[] EXPORTS = {"--workers", "40", "--export-min-ms", "4000", "--export-max-ms", "12000"};
    private static final int WORKERS = 40;
    private static final int CLIENTS = 100;
    private static final double MEAN_EXPORT = (4 + 12) / 2.0;
    /** How long the incident's clients re-send exports. */
    private static final Duration SUSTAIN = Duration.ofSeconds(40);
    /** The demo's stall detection ({@code --stall-after-ms}), seconds. */
    private static final double STALL_AFTER = 5;

    /**
     * The catalog as data: one entry per case, in the order {@code all} runs them, each a function
     * from the sizing to the case (its probes, faults, expectations and margins).
     */
    private static final List<Function<Sized, ReplayCase>> CASES = List.of(ReplayCatalog::incident,
            ReplayCatalog::incidentBurst, ReplayCatalog::dbOutage, ReplayCatalog::slowStart, ReplayCatalog::stall,
            ReplayCatalog::stallDeadlock, ReplayCatalog::incidentGrpc, ReplayCatalog::incidentAgent, ReplayCatalog::cpuLimit);

    private static final List<ReplayCase> NOMINAL_CASES = build(NOMINAL, assumedUnderLimit(NOMINAL), Optional.empty());

    private ReplayCatalog() {
    }

    /** @return every case sized for {@link #NOMINAL}, in order */
    public static List<ReplayCase> all() {
        return all(NOMINAL);
    }

    /**
     * @param sizing the boot time measured on this machine
     * @return every case sized for it, in order (a case whose margins cannot be had carries its {@link ReplayCase#skip()} reason)
     */
    public static List<ReplayCase> all(Sizing sizing) {
        return sizing == NOMINAL ? NOMINAL_CASES : build(sizing, assumedUnderLimit(sizing), Optional.empty());
    }

    /**
     * @param sizing the boot time measured on this machine
     * @param underLimit the boot time measured under {@link #CPU_LIMIT} (sizes {@code cpu-limit})
     * @param limitsNotApplied why no cgroup can be created here, if so ({@code cpu-limit} is then
     *        skipped with it, not run)
     * @return every case sized for them, in order
     */
    public static List<ReplayCase> all(Sizing sizing, Sizing underLimit, Optional<String> limitsNotApplied) {
        return build(sizing, underLimit, limitsNotApplied);
    }

    /**
     * @param sizing the unconstrained boot
     * @return the boot under {@link #CPU_LIMIT} assumed where it was not measured:
     *         {@link #ASSUMED_LIMIT_SLOWDOWN} times slower, at most 3600 s
     */
    public static Sizing assumedUnderLimit(Sizing sizing) {
        return Sizing.given(Math.min(3600, ASSUMED_LIMIT_SLOWDOWN * sizing.bootSeconds()));
    }

    /**
     * @param names scenario names ({@code incident}, …), case names ({@code incident-burst}, …)
     *        or {@code all}; empty means all
     * @return the cases sized for {@link #NOMINAL}
     * @throws IllegalArgumentException naming the unknown name and the known ones
     */
    public static List<ReplayCase> select(List<String> names) {
        return select(names, NOMINAL);
    }

    /**
     * @param names scenario names ({@code incident}, …), case names ({@code incident-burst}, …)
     *        or {@code all}; empty means all
     * @param sizing the boot time measured on this machine
     * @return the cases, in catalog order, each once
     * @throws IllegalArgumentException naming the unknown name and the known ones
     */
    public static List<ReplayCase> select(List<String> names, Sizing sizing) {
        return select(names, all(sizing));
    }

    /**
     * @param names scenario names, case names or {@code all}; empty means all
     * @param sizing the boot time measured on this machine
     * @param underLimit the boot time measured under {@link #CPU_LIMIT}
     * @param limitsNotApplied why no cgroup can be created here, if so
     * @return the cases, in catalog order, each once
     * @throws IllegalArgumentException naming the unknown name and the known ones
     */
    public static List<ReplayCase> select(List<String> names, Sizing sizing, Sizing underLimit, Optional<String> limitsNotApplied) {
        return select(names, all(sizing, underLimit, limitsNotApplied));
    }

    private static List<ReplayCase> select(List<String> names, List<ReplayCase> all) {
        if (names.isEmpty() || names.contains("all")) {
            return all;
        }
        for (String n : names) {
            if (all.stream().noneMatch(c -> c.scenario().equals(n) || c.name().equals(n))) {
                List<String> rows = new ArrayList<>();
                all.forEach(c -> rows.add(c.name()));
                throw new IllegalArgumentException("unknown scenario '" + n + "': expected one of " + String.join(", ", SCENARIOS)
                        + ", all (or a single row: " + String.join(", ", rows) + ")");
            }
        }
        Set<ReplayCase> out = new LinkedHashSet<>();
        for (ReplayCase c : all) {
            if (names.contains(c.scenario()) || names.contains(c.name())) {
                out.add(c);
            }
        }
        return List.copyOf(out);
    }

    /** Kill time of a probe that fails from now on: the failures of all but the last period, then its timeout. */
    private static double timeToKill(ProbeTiming t) {
        return (t.failureThreshold() - 1) * (double) t.periodSeconds() + t.timeoutSeconds();
    }

    private static Duration seconds(double s) {
        return Duration.ofSeconds((long) Math.ceil(s));
    }

    private static List<ReplayCase> build(Sizing sizing, Sizing underLimit, Optional<String> limitsNotApplied) {
        Sized s = new Sized(sizing, underLimit, limitsNotApplied);
        return CASES.stream().map(c -> c.apply(s)).toList();
    }

    /**
     * What the cases are sized from.
     *
     * @param sizing the boot measured here
     * @param underLimit the boot measured under {@link #CPU_LIMIT}
     * @param limitsNotApplied why no cgroup can be created here, if so
     */
    private record Sized(Sizing sizing, Sizing underLimit, Optional<String> limitsNotApplied) {
        double boot() {
            return sizing.bootSeconds();
        }

        double allowance() {
            return sizing.readyAllowanceSeconds();
        }

        /**
         * Where start-up is not the subject, both wirings get the same generous startup probe, so
         * a slow JVM start on a busy machine is never mistaken for the failure under test.
         */
        ProbeTiming boot60() {
            return new ProbeTiming(1, 1, sizing.bootStartupThreshold());
        }

        /** @return {@code b} with the startup budget's and the Ready allowance's margins, and the allowance */
        ReplayCase.Builder bootMargins(ReplayCase.Builder b) {
            return b.margin(Margin.predicted("startup budget vs boot", boot60().failureThreshold(), boot()))
                    .margin(Margin.predicted("Ready allowance vs boot", allowance(), boot()))
                    .readyAllowance(allowance());
        }
    }

    /**
     * The incident's sustained load and probe, sized and with its margins: the incident row, and the
     * same run with the kubelet probing Vitals over gRPC, or the naive demo with the agent.
     */
    private static ReplayCase.Builder incidentLoad(ReplayCase.Builder b, Sized s) {
        ProbeTiming boot60 = s.boot60();
        return s.bootMargins(b.demoFlags(EXPORTS)
                .startup(Wiring.NAIVE, boot60).startup(Wiring.NAIVE_AGENT, boot60).startup(Wiring.VITALS, boot60)
                .liveness(INCIDENT).readiness(INCIDENT)
                .step(ReplayStep.load(Duration.ofSeconds(2), CLIENTS, SUSTAIN, Duration.ofSeconds(60)))
                .duration(seconds(s.allowance() + 2 + SUSTAIN.toSeconds() + 8))
                .expect(Wiring.VITALS, restarts("==", 0))
                .expect(Wiring.VITALS, livenessHeadroom(Margin.TWICE)));
    }

    /** @return {@code b} with the naive wiring's margins under the incident's load: its queue wait and the load's length */
    private static ReplayCase.Builder naiveIncidentMargins(ReplayCase.Builder b) {
        return b.margin(Margin.predicted("naive: liveness wait behind the exports vs timeout",
                        (CLIENTS - WORKERS) * MEAN_EXPORT / WORKERS, INCIDENT.timeoutSeconds()))
                .margin(Margin.predicted("naive: sustained load vs time to kill", SUSTAIN.toSeconds(), timeToKill(INCIDENT)));
    }

    private static ReplayCase incident(Sized s) {
        return naiveIncidentMargins(incidentLoad(ReplayCase.builder("incident", "incident"), s)
                .title("the incident's probe; 40 workers, exports hold a worker 4-12 s; 100 clients re-send exports for 40 s")
                .expect(Wiring.NAIVE, restarts(">=", 1)))
                .build();
    }

    private static ReplayCase incidentBurst(Sized s) {
        return s.bootMargins(ReplayCase.builder("incident-burst", "incident")
                .title("the incident's literal burst: 53 exports at concurrency 50, kubelet's default 1 s probe timeout")
                .demoFlags(EXPORTS)
                .startup(Wiring.NAIVE, s.boot60()).startup(Wiring.VITALS, s.boot60())
                .liveness(INCIDENT_DEFAULT_TIMEOUT).readiness(INCIDENT_DEFAULT_TIMEOUT)
                .step(ReplayStep.burst(Duration.ofSeconds(1), 53, 50, Duration.ofSeconds(60)))
                .duration(seconds(s.allowance() + 1 + 2 + 12 + 15))
                .expect(Wiring.VITALS, restarts("==", 0))
                .expect(Wiring.VITALS, livenessHeadroom(Margin.TWICE)))
                .build();
    }

    private static ReplayCase dbOutage(Sized s) {
        Duration outage = Duration.ofSeconds(20);
        double checkInterval = 2;
        double checkTimeout = 2;
        double recovery = checkInterval + checkTimeout + INCIDENT.periodSeconds();
        double tail = 2 * recovery;
        return s.bootMargins(ReplayCase.builder("db-outage", "db-outage")
                .title("the database cut at the fault proxy for 20 s (new connections refused, open ones reset)")
                .startup(Wiring.NAIVE, s.boot60()).startup(Wiring.VITALS, s.boot60())
                .liveness(INCIDENT).readiness(INCIDENT)
                .step(ReplayStep.dbOutage(Duration.ofSeconds(3), outage))
                .duration(seconds(s.allowance() + 3 + outage.toSeconds() + tail))
                .expect(Wiring.NAIVE, restarts(">=", 1))
                .expect(Wiring.VITALS, restarts("==", 0))
                .expect(Wiring.VITALS, notReadyDuring("db-outage"))
                .expect(Wiring.VITALS, readyAtEnd())
                .expect(Wiring.VITALS, livenessHeadroom(Margin.TWICE)))
                .margin(Margin.predicted("naive: outage vs time to kill", outage.toSeconds(),
                        INCIDENT.failureThreshold() * (double) INCIDENT.periodSeconds() + INCIDENT.timeoutSeconds()))
                .margin(Margin.predicted("vitals: outage vs time to not-ready", outage.toSeconds(),
                        checkInterval + checkTimeout + INCIDENT.failureThreshold() * (double) INCIDENT.periodSeconds()))
                .margin(Margin.predicted("vitals: time left after the outage vs recovery", tail, recovery))
                .build();
    }

    private static ReplayCase slowStart(Sized s) {
        double livenessBudget = FAST.periodSeconds() * (double) FAST.failureThreshold();
        double delay = 2 * livenessBudget;
        double vitalsStart = delay + s.boot();
        ProbeTiming vitalsStartup = new ProbeTiming(1, 1, (int) Math.ceil(3 * vitalsStart));
        double grace = ReplayCase.GRACE_SECONDS;
        // life 1 killed at the budget, restarted at once (R50), life 2 killed likewise, then the back-off
        double secondKillAndBackOff = 2 * (livenessBudget + grace);
        Duration slowRun = seconds(Math.max(2 * secondKillAndBackOff, 2 * vitalsStart) + 1);
        return ReplayCase.builder("slow-start", "slow-start")
                .title(String.format(java.util.Locale.ROOT, "start-up takes %.0f s plus JVM boot; liveness period 1 s, "
                        + "failureThreshold 3; startup probe (%d s budget) for Vitals only", delay, vitalsStartup.failureThreshold()))
                .demoFlags("--startup-delay-ms", Long.toString((long) (delay * 1000)))
                .liveness(FAST).readiness(FAST)
                .startup(Wiring.VITALS, vitalsStartup)
                .duration(slowRun)
                .expect(Wiring.NAIVE, kills(">=", 2))
                .expect(Wiring.NAIVE, crashLoopBackOff())
                .expect(Wiring.VITALS, restarts("==", 0))
                .expect(Wiring.VITALS, readyAtEnd())
                .margin(Margin.predicted("naive: start-up delay vs liveness budget", delay, livenessBudget))
                .margin(Margin.predicted("naive: run length vs second kill and back-off", slowRun.toSeconds(), secondKillAndBackOff))
                .margin(Margin.predicted("vitals: startup budget vs start-up", vitalsStartup.failureThreshold(), vitalsStart))
                .margin(Margin.predicted("vitals: run length vs start-up", slowRun.toSeconds(), vitalsStart))
                .build();
    }

    private static ReplayCase stall(Sized s) {
        Duration freeze = Duration.ofMillis(1500);
        return s.bootMargins(ReplayCase.builder("stall", "stall")
                .title("the process frozen (SIGSTOP) for 1.5 s; liveness period 1 s, timeout 1 s, failureThreshold 3")
                .demoFlags("--stall-after-ms", Long.toString((long) (STALL_AFTER * 1000)))
                .startup(Wiring.NAIVE, s.boot60()).startup(Wiring.VITALS, s.boot60())
                .liveness(FAST).readiness(FAST)
                .step(ReplayStep.freeze(Duration.ofSeconds(3), freeze))
                .duration(seconds(s.allowance() + 3 + freeze.toMillis() / 1000.0 + 12))
                .expect(Wiring.NAIVE, restarts("==", 0))
                .expect(Wiring.VITALS, restarts("==", 0)))
                .margin(Margin.predicted("both: freeze a kill needs vs freeze", timeToKill(FAST), freeze.toMillis() / 1000.0))
                .margin(Margin.predicted("vitals: stall detection vs freeze", STALL_AFTER, freeze.toMillis() / 1000.0))
                .build();
    }

    private static ReplayCase stallDeadlock(Sized s) {
        // Vitals kills a stuck application after stall detection, one liveness check interval (1 s)
        // and the kubelet's failures; naive after the kubelet's failures alone.
        double vitalsDeadlockKill = STALL_AFTER + 1 + timeToKill(FAST);
        double observeDeadlock = 2 * vitalsDeadlockKill;
        return s.bootMargins(ReplayCase.builder("stall-deadlock", "stall")
                .title("the demo's workers deadlocked (--chaos, POST /chaos/deadlock-workers): a stuck application")
                .demoFlags("--chaos", "--stall-after-ms", Long.toString((long) (STALL_AFTER * 1000)))
                .startup(Wiring.NAIVE, s.boot60()).startup(Wiring.VITALS, s.boot60())
                .liveness(FAST).readiness(FAST)
                .step(ReplayStep.post(Duration.ofSeconds(3), "/chaos/deadlock-workers"))
                .duration(seconds(s.allowance() + 3 + observeDeadlock))
                .expect(Wiring.NAIVE, restarts(">=", 1))
                .expect(Wiring.VITALS, restarts(">=", 1)))
                .margin(Margin.predicted("vitals: observation after the deadlock vs time to kill", observeDeadlock, vitalsDeadlockKill))
                .margin(Margin.predicted("naive: observation after the deadlock vs time to kill", observeDeadlock,
                        FAST.failureThreshold() * (double) FAST.periodSeconds() + FAST.timeoutSeconds()))
                .build();
    }

    private static ReplayCase incidentGrpc(Sized s) {
        return naiveIncidentMargins(incidentLoad(ReplayCase.builder("incident-grpc", "grpc"), s)
                .title("the incident's load and probe, the kubelet probing Vitals over gRPC (grpc.health.v1); "
                        + "naive keeps HTTP /healthz")
                .grpcProbes()
                .expect(Wiring.NAIVE, restarts(">=", 1)))
                .build();
    }

    private static ReplayCase incidentAgent(Sized s) {
        return incidentLoad(ReplayCase.builder("incident-agent", "agent"), s)
                .title("the incident's load on the naive demo, unchanged, with -javaagent:vitals-agent.jar (kubelet probes the agent)")
                .wirings(Wiring.NAIVE_AGENT, Wiring.VITALS)
                .expect(Wiring.NAIVE_AGENT, restarts("==", 0))
                .expect(Wiring.NAIVE_AGENT, livenessHeadroom(Margin.TWICE))
                .build();
    }

    /**
     * The incident under a 500m CPU limit: the same load, probes and expectations, sized from the
     * boot under the limit (a shared sizing would give the limited JVM the unconstrained boot's
     * budgets and margins).
     */
    private static ReplayCase cpuLimit(Sized s) {
        ProbeTiming limitedBoot = new ProbeTiming(1, 1, s.underLimit().bootStartupThreshold());
        double limitedAllowance = s.underLimit().readyAllowanceSeconds();
        ReplayCase.Builder cpuLimit = naiveIncidentMargins(ReplayCase.builder("cpu-limit", "cpu-limit")
                .title("the incident's probe and load with limits.cpu: 500m (a cgroup per demo instance); "
                        + "sized from the boot under the limit")
                .resources(CPU_LIMIT)
                .demoFlags(EXPORTS)
                .startup(Wiring.NAIVE, limitedBoot).startup(Wiring.VITALS, limitedBoot)
                .liveness(INCIDENT).readiness(INCIDENT)
                .step(ReplayStep.load(Duration.ofSeconds(2), CLIENTS, SUSTAIN, Duration.ofSeconds(60)))
                .duration(seconds(limitedAllowance + 2 + SUSTAIN.toSeconds() + 8))
                .expect(Wiring.NAIVE, restarts(">=", 1))
                .expect(Wiring.VITALS, restarts("==", 0))
                .expect(Wiring.VITALS, livenessHeadroom(Margin.TWICE))
                .margin(Margin.predicted("startup budget vs boot under 500m", limitedBoot.failureThreshold(),
                        s.underLimit().bootSeconds()))
                .margin(Margin.predicted("Ready allowance vs boot under 500m", limitedAllowance, s.underLimit().bootSeconds()))
                .readyAllowance(limitedAllowance));
        s.limitsNotApplied().ifPresent(why -> cpuLimit.skip(why.startsWith("limits not applied") ? why : "limits not applied: " + why));
        return cpuLimit.build();
    }
}
