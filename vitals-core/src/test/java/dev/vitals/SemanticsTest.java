package dev.vitals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import dev.vitals.testing.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Failure isolation, thresholds, aggregation, availability and validation, on a manual clock. */
class SemanticsTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final List<HealthRegistry> registries = new ArrayList<>();

    @AfterEach
    void close() {
        registries.forEach(HealthRegistry::close);
    }

    private HealthRegistry.Builder builder() {
        return HealthRegistry.builder().clock(scheduler.clock()).scheduler(scheduler);
    }

    private HealthRegistry build(HealthRegistry.Builder b) {
        HealthRegistry r = b.build();
        registries.add(r);
        return r;
    }

    private static Report evaluate(HealthRegistry r, String group) throws Exception {
        return r.evaluate(group).get(10, TimeUnit.SECONDS);
    }

    static List<Arguments> failures() {
        return List.of(
                Arguments.of("throws an exception", (Supplier<Check>) () -> Check.builder("bad", () -> {
                    throw new IllegalStateException("boom");
                }).mode(Mode.ON_DEMAND).build(), "java.lang.IllegalStateException"),
                Arguments.of("throws an Error", (Supplier<Check>) () -> Check.builder("bad", () -> {
                    throw new StackOverflowError("deep");
                }).mode(Mode.ON_DEMAND).build(), "java.lang.StackOverflowError"),
                Arguments.of("returns null", (Supplier<Check>) () -> Check.builder("bad", () -> null)
                        .mode(Mode.ON_DEMAND).build(), "java.lang.NullPointerException"),
                Arguments.of("is interrupted", (Supplier<Check>) () -> Check.builder("bad", () -> {
                    throw new InterruptedException("stop");
                }).mode(Mode.ON_DEMAND).build(), "java.lang.InterruptedException"),
                Arguments.of("completes exceptionally", (Supplier<Check>) () -> Check.asyncBuilder("bad",
                        () -> CompletableFuture.failedFuture(new java.io.IOException("refused")))
                        .mode(Mode.ON_DEMAND).build(), "java.io.IOException"),
                Arguments.of("completes with null", (Supplier<Check>) () -> Check.asyncBuilder("bad",
                        () -> CompletableFuture.completedFuture(null)).mode(Mode.ON_DEMAND).build(),
                        "java.lang.NullPointerException"),
                Arguments.of("returns a null stage", (Supplier<Check>) () -> Check.asyncBuilder("bad", () -> null)
                        .mode(Mode.ON_DEMAND).build(), "java.lang.NullPointerException"),
                Arguments.of("async check() throws", (Supplier<Check>) () -> Check.asyncBuilder("bad", () -> {
                    throw new UnsupportedOperationException("no");
                }).mode(Mode.ON_DEMAND).build(), "java.lang.UnsupportedOperationException"));
    }

    @ParameterizedTest(name = "a check that {0} is DOWN alone")
    @MethodSource("failures")
    void failingCheckIsDownForThatCheckOnly(String how, Supplier<Check> bad, String errorType) throws Exception {
        HealthRegistry r = build(builder().register(bad.get())
                .register(Check.builder("good", Health::up).mode(Mode.ON_DEMAND).build())
                .register(Check.builder("other-group", Health::up).groups(Groups.LIVENESS).mode(Mode.ON_DEMAND).build()));

        Report report = evaluate(r, Groups.READINESS);
        assertThat(report.checks().get("bad").status()).isEqualTo(Status.DOWN);
        assertThat(report.checks().get("bad").errorType()).hasValue(errorType);
        assertThat(report.checks().get("good").status()).isEqualTo(Status.UP);
        assertThat(report.status()).isEqualTo(Status.DOWN);
        assertThat(evaluate(r, Groups.LIVENESS).status()).isEqualTo(Status.UP);
    }

    @Test
    void interruptedCheckLeavesItsThreadInterruptFlagSetAndTheEngineUsable() throws Exception {
        TestChecks.Settable after = new TestChecks.Settable();
        int[] calls = {0};
        HealthRegistry r = build(builder().register(Check.builder("c", () -> {
            if (calls[0]++ == 0) {
                throw new InterruptedException();
            }
            return after.check();
        }).mode(Mode.ON_DEMAND).ttl(Duration.ofMillis(1)).build()));
        assertThat(evaluate(r, Groups.READINESS).status()).isEqualTo(Status.DOWN);
        scheduler.advance(Duration.ofMillis(5));
        assertThat(evaluate(r, Groups.READINESS).status()).isEqualTo(Status.UP);
    }

    @Test
    void failureThresholdNeedsConsecutiveFailuresToFlip() throws Exception {
        TestChecks.Settable c = new TestChecks.Settable();
        HealthRegistry r = build(builder().register(Check.builder("db", c).mode(Mode.ON_DEMAND)
                .ttl(Duration.ofMillis(1)).failureThreshold(3).successThreshold(2).build()));
        Supplier<Health> next = () -> {
            scheduler.advance(Duration.ofMillis(2));
            try {
                return evaluate(r, Groups.READINESS).checks().get("db");
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        };
        assertThat(next.get().status()).isEqualTo(Status.UP);
        c.set(Health.down("refused"));
        Health pending = next.get();
        assertThat(pending.status()).isEqualTo(Status.UP);
        assertThat(pending.message()).hasValue("pending DOWN (1 of 3 consecutive results): refused");
        assertThat(next.get().status()).isEqualTo(Status.UP);
        c.set(Health.up()); // one success resets the failure run
        assertThat(next.get().status()).isEqualTo(Status.UP);
        c.set(Health.down("refused"));
        assertThat(next.get().status()).isEqualTo(Status.UP);
        assertThat(next.get().status()).isEqualTo(Status.UP);
        assertThat(next.get().status()).isEqualTo(Status.DOWN);
        c.set(Health.up());
        assertThat(next.get().status()).isEqualTo(Status.DOWN); // 1 of 2 successes
        assertThat(next.get().status()).isEqualTo(Status.UP);
    }

    @Test
    void aggregationUsesCriticality() throws Exception {
        TestChecks.Settable critical = new TestChecks.Settable();
        TestChecks.Settable optional = new TestChecks.Settable();
        HealthRegistry r = build(builder().group("g")
                .register(Check.builder("critical", critical).groups("g").mode(Mode.ON_DEMAND).ttl(Duration.ofMillis(1)).build())
                .register(Check.builder("optional", optional).groups("g").critical(false).mode(Mode.ON_DEMAND)
                        .ttl(Duration.ofMillis(1)).build()));
        Map<String, Status> expected = Map.of(
                "UP/UP", Status.UP, "UP/DOWN", Status.DEGRADED, "UP/DEGRADED", Status.DEGRADED,
                "DEGRADED/UP", Status.DEGRADED, "DOWN/UP", Status.DOWN, "DOWN/DOWN", Status.DOWN,
                "UNKNOWN/UP", Status.UNKNOWN, "UP/UNKNOWN", Status.DEGRADED);
        for (Map.Entry<String, Status> e : expected.entrySet()) {
            String[] parts = e.getKey().split("/");
            critical.set(Health.builder(Status.valueOf(parts[0])).build());
            optional.set(Health.builder(Status.valueOf(parts[1])).build());
            scheduler.advance(Duration.ofMillis(2));
            Report report = evaluate(r, "g");
            assertThat(report.status()).as(e.getKey()).isEqualTo(e.getValue());
            assertThat(report.status().isHealthy()).isEqualTo(e.getValue() == Status.UP || e.getValue() == Status.DEGRADED);
        }
    }

    // case C13: status is derived from the whole set; only non-critical checks, or none, is not stuck
    @Test
    void c13GroupsOfOnlyNonCriticalChecksOrNoChecksBecomeHealthy() throws Exception {
        TestChecks.Settable a = new TestChecks.Settable().set(Health.down("warming"));
        HealthRegistry r = build(builder().group("optional-only").group("empty")
                .register(Check.builder("a", a).groups("optional-only").critical(false).mode(Mode.ON_DEMAND)
                        .ttl(Duration.ofMillis(1)).build())
                .register(Check.builder("b", Health::up).groups("optional-only").critical(false).mode(Mode.ON_DEMAND).build()));

        assertThat(evaluate(r, "optional-only").status()).isEqualTo(Status.DEGRADED);
        assertThat(evaluate(r, "optional-only").status().isHealthy()).isTrue();
        a.set(Health.up());
        scheduler.advance(Duration.ofMillis(5));
        assertThat(evaluate(r, "optional-only").status()).isEqualTo(Status.UP);
        assertThat(r.report("empty").status()).isEqualTo(Status.UP);
        assertThat(r.report("empty").checks()).isEmpty();
    }

    @Test
    void manualStartupGatesReadinessAndThenStaysUp() throws Exception {
        TestChecks.Settable migrations = new TestChecks.Settable().set(Health.down("running"));
        HealthRegistry r = build(builder().startupCompletion(StartupCompletion.MANUAL)
                .register(Check.builder("migrations", migrations).groups(Groups.STARTUP).mode(Mode.ON_DEMAND)
                        .ttl(Duration.ofMillis(1)).build()));
        r.start();

        assertThat(evaluate(r, Groups.STARTUP).status()).isEqualTo(Status.DOWN);
        assertThat(r.report(Groups.READINESS).status()).isEqualTo(Status.DOWN);
        assertThat(r.report(Groups.READINESS).checks().get(Availability.CHECK_NAME).message()).hasValue("starting");
        assertThat(r.report(Groups.LIVENESS).status()).as("liveness is UP while starting (case C11)").isEqualTo(Status.UP);

        migrations.set(Health.up());
        scheduler.advance(Duration.ofMillis(5));
        assertThat(evaluate(r, Groups.STARTUP).status()).as("manual: checks passing is not enough").isEqualTo(Status.DOWN);
        r.availability().markStartupComplete();
        assertThat(evaluate(r, Groups.STARTUP).status()).isEqualTo(Status.UP);
        assertThat(r.report(Groups.READINESS).status()).isEqualTo(Status.UP);

        migrations.set(Health.down("later failure"));
        scheduler.advance(Duration.ofMillis(5));
        Report after = evaluate(r, Groups.STARTUP);
        assertThat(after.status()).as("startup stays UP once passed, as kubelet stops probing").isEqualTo(Status.UP);
        assertThat(after.checks().get("migrations").status()).isEqualTo(Status.DOWN);
    }

    @Test
    void automaticStartupCompletesWhenStartupChecksFirstPass() throws Exception {
        TestChecks.Settable warm = new TestChecks.Settable().set(Health.down("cold"));
        HealthRegistry r = build(builder()
                .register(Check.builder("cache-warm", warm).groups(Groups.STARTUP).interval(Duration.ofSeconds(1)).build()));
        r.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> warm.executions.get() == 1);
        assertThat(r.report(Groups.STARTUP).status()).isEqualTo(Status.DOWN);
        assertThat(r.availability().isStartupComplete()).isFalse();
        warm.set(Health.up());
        scheduler.advance(Duration.ofSeconds(1));
        await().atMost(Duration.ofSeconds(10)).until(() -> r.availability().isStartupComplete());
        assertThat(r.report(Groups.STARTUP).status()).isEqualTo(Status.UP);
        assertThat(r.report(Groups.READINESS).status()).isEqualTo(Status.UP);
    }

    @Test
    void automaticStartupWithoutStartupChecksIsCompleteAtOnce() {
        HealthRegistry r = build(builder());
        assertThat(r.availability().isStartupComplete()).isTrue();
        assertThat(r.report(Groups.STARTUP).status()).isEqualTo(Status.UP);
    }

    // case C14: on SIGTERM readiness fails first while liveness stays up; the hook runs after the drain delay
    @Test
    void c14DrainFailsReadinessAtOnceKeepsLivenessAndCompletesAfterTheDelay() {
        HealthRegistry r = build(builder().register(Check.builder("db", Health::up).build()));
        r.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> r.report(Groups.READINESS).status() == Status.UP);

        CompletableFuture<Void> drained = r.availability().drain(Duration.ofSeconds(5));
        assertThat(r.report(Groups.READINESS).status()).isEqualTo(Status.DOWN);
        assertThat(r.report(Groups.READINESS).checks().get(Availability.CHECK_NAME).message())
                .hasValue("draining: the process is shutting down");
        assertThat(r.report(Groups.LIVENESS).status()).isEqualTo(Status.UP);
        assertThat(r.availability().drain(Duration.ofSeconds(1))).isSameAs(drained);
        scheduler.advance(Duration.ofSeconds(4));
        assertThat(drained).isNotDone();
        scheduler.advance(Duration.ofSeconds(1));
        assertThat(drained).isCompleted();
        r.availability().acceptTraffic();
        assertThat(r.report(Groups.READINESS).status()).as("a drain is not undone").isEqualTo(Status.DOWN);
    }

    @Test
    void brokenAndRefusingStatesMoveTheRightProbe() {
        HealthRegistry r = build(builder());
        r.availability().markBroken("event loop lost");
        assertThat(r.report(Groups.LIVENESS).status()).isEqualTo(Status.DOWN);
        assertThat(r.report(Groups.LIVENESS).checks().get(Availability.CHECK_NAME).message())
                .hasValue("marked broken: event loop lost");
        assertThat(r.report(Groups.READINESS).status()).isEqualTo(Status.UP);
        r.availability().markCorrect();
        assertThat(r.report(Groups.LIVENESS).status()).isEqualTo(Status.UP);

        r.availability().refuseTraffic("maintenance");
        assertThat(r.report(Groups.READINESS).status()).isEqualTo(Status.DOWN);
        assertThat(r.report(Groups.LIVENESS).status()).isEqualTo(Status.UP);
        r.availability().acceptTraffic();
        assertThat(r.report(Groups.READINESS).status()).isEqualTo(Status.UP);
    }

    @Test
    void excludedChecksAreNotRunAndNotShown() throws Exception {
        TestChecks.Settable skipped = new TestChecks.Settable().set(Health.down("x"));
        HealthRegistry r = build(builder()
                .register(Check.builder("skipped", skipped).mode(Mode.ON_DEMAND).build())
                .register(Check.builder("kept", Health::up).mode(Mode.ON_DEMAND).build()));
        Report report = r.evaluate(Groups.READINESS, List.of("skipped", "no-such-check")).get(10, TimeUnit.SECONDS);
        assertThat(report.checks()).containsOnlyKeys("kept", Availability.CHECK_NAME);
        assertThat(report.status()).isEqualTo(Status.UP);
        assertThat(skipped.executions).hasValue(0);
    }

    @Test
    void healthValuesAreImmutableAndDetailsSorted() {
        Health h = Health.builder(Status.UP).detail("zeta", 1).detail("alpha", "a").detail("obj", List.of(1)).build();
        assertThat(h.details().keySet()).containsExactly("alpha", "obj", "zeta");
        assertThat(h.details().get("obj")).isEqualTo("[1]");
        Health h2 = h.withDetail("beta", true);
        assertThat(h.details()).doesNotContainKey("beta");
        assertThat(h2.details()).containsEntry("beta", true);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> h.details().put("x", 1))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(Health.down(new IllegalStateException()).message()).isEmpty();
    }

    // ------------------------------------------------------------------ validation

    static List<Arguments> badPolicies() {
        HealthCheck ok = Health::up;
        return List.of(
                Arguments.of((Runnable) () -> Check.builder("db", ok).timeout(Duration.ZERO).build(),
                        "check 'db': timeout must be at least 1 ms, was PT0S"),
                Arguments.of((Runnable) () -> Check.builder("db", ok).timeout(Duration.ofSeconds(-1)).build(),
                        "check 'db': timeout must be at least 1 ms, was PT-1S"),
                Arguments.of((Runnable) () -> Check.builder("db", ok).interval(Duration.ZERO).build(),
                        "check 'db': interval must be at least 1 ms, was PT0S"),
                Arguments.of((Runnable) () -> Check.builder("db", ok).ttl(Duration.ofNanos(10)).build(),
                        "check 'db': ttl must be at least 1 ms, was PT0.00000001S"),
                Arguments.of((Runnable) () -> Check.builder("db", ok).maxAge(Duration.ofSeconds(-5)).build(),
                        "check 'db': maxAge must be at least 1 ms, was PT-5S"),
                Arguments.of((Runnable) () -> Check.builder("db", ok).interval(Duration.ofSeconds(10))
                        .maxAge(Duration.ofSeconds(5)).build(),
                        "check 'db': maxAge must be at least interval (PT10S), was PT5S"),
                Arguments.of((Runnable) () -> Check.builder("db", ok).failureThreshold(0).build(),
                        "check 'db': failureThreshold must be at least 1, was 0"),
                Arguments.of((Runnable) () -> Check.builder("db", ok).successThreshold(-1).build(),
                        "check 'db': successThreshold must be at least 1, was -1"),
                Arguments.of((Runnable) () -> Check.builder(" ", ok), "check name must not be blank"),
                Arguments.of((Runnable) () -> Check.builder("a/b", ok),
                        "check name 'a/b' may hold only letters, digits, '.', '_' and '-' (it is used in probe paths)"),
                Arguments.of((Runnable) () -> Check.builder("db", ok).groups("").build(),
                        "check 'db': group must not be blank"),
                Arguments.of((Runnable) () -> HealthRegistry.builder()
                        .register(Check.builder("db", ok).build()).register(Check.builder("db", ok).build()).build(),
                        "check 'db': name registered twice"),
                Arguments.of((Runnable) () -> HealthRegistry.builder()
                        .register(Check.builder("db", ok).groups("payments").build()).build(),
                        "check 'db': groups names unknown group 'payments'; declare it with HealthRegistry.Builder.group(\"payments\")"),
                Arguments.of((Runnable) () -> HealthRegistry.builder()
                        .register(Check.builder("availability", ok).build()).build(),
                        "check 'availability': name is reserved for the availability state"),
                Arguments.of((Runnable) () -> HealthRegistry.builder().group("liveness"),
                        "group 'liveness' is built in; declare only custom groups"),
                Arguments.of((Runnable) () -> HealthRegistry.builder().drainOnShutdown(Duration.ofSeconds(-1)),
                        "drainOnShutdown delay must not be negative, was PT-1S"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("badPolicies")
    void badConfigurationIsRejectedNamingCheckAndField(Runnable build, String message) {
        assertThatIllegalArgumentException().isThrownBy(build::run).withMessage(message);
    }

    @Test
    void nullArgumentsAreRejectedByName() {
        org.assertj.core.api.Assertions.assertThatNullPointerException()
                .isThrownBy(() -> Check.builder("db", (HealthCheck) null)).withMessage("check");
        org.assertj.core.api.Assertions.assertThatNullPointerException()
                .isThrownBy(() -> Check.builder("db", Health::up).timeout(null)).withMessage("timeout");
    }

    @Test
    void defaultsFollowTheDesign() {
        Check c = Check.builder("db", Health::up).build();
        assertThat(c.groups()).containsExactly(Groups.READINESS);
        assertThat(c.critical()).isTrue();
        assertThat(c.mode()).isEqualTo(Mode.SCHEDULED);
        assertThat(c.interval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.timeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(c.maxAge()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.failureThreshold()).isEqualTo(1);
        assertThat(c.successThreshold()).isEqualTo(1);
    }
}
