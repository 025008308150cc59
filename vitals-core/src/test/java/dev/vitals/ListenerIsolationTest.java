package dev.vitals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.testing.ManualClock;
import dev.vitals.testing.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 40: listeners are isolated from each other. Each has its own bounded queue; a hanging, a
 * slow and a throwing application listener leave a metrics-like listener's notices and the
 * transition log complete; a throwing listener is logged once per transition, then counted; a
 * full queue drops its oldest notices and counts them; the delivery threads stay bounded.
 */
class ListenerIsolationTest {
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final CountDownLatch releaseAll = new CountDownLatch(1);
    private final Logger vitalsLog = Logger.getLogger("dev.vitals");
    private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            logged.add(r);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private Level oldLevel;

    @BeforeEach
    void captureLogs() {
        oldLevel = vitalsLog.getLevel();
        vitalsLog.setLevel(Level.ALL);
        vitalsLog.addHandler(capture);
    }

    @AfterEach
    void closeAll() throws Exception {
        releaseAll.countDown();
        for (AutoCloseable c : closeables) {
            c.close();
        }
        vitalsLog.removeHandler(capture);
        vitalsLog.setLevel(oldLevel);
    }

    /** Stands for {@code VitalsMetrics}: in memory, says so, records every run number per check. */
    static final class MetricsLike implements HealthListener {
        final Map<String, List<Long>> seen = new ConcurrentHashMap<>();

        @Override
        public void onExecution(Check check, Health health, boolean timedOut) {
            seen.computeIfAbsent(check.name(), k -> new CopyOnWriteArrayList<>())
                    .add(((Number) health.details().get("n")).longValue());
        }

        @Override
        public boolean nonBlocking() {
            return true;
        }
    }

    static final class Throwing implements HealthListener {
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public void onExecution(Check check, Health health, boolean timedOut) {
            calls.incrementAndGet();
            throw new IllegalStateException("webhook said 500");
        }
    }

    @Test
    void aHangingASlowAndAThrowingListenerLeaveTheMetricsListenerAndTheTransitionLogComplete() throws Exception {
        AtomicInteger aRuns = new AtomicInteger();
        AtomicInteger flipRuns = new AtomicInteger();
        AtomicInteger hung = new AtomicInteger();
        HealthListener hanging = (check, health, timedOut) -> { // a webhook without a timeout, in an outage
            hung.incrementAndGet();
            try {
                releaseAll.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        AtomicInteger slowCalls = new AtomicInteger();
        HealthListener slow = (check, health, timedOut) -> {
            slowCalls.incrementAndGet();
            try {
                Thread.sleep(1_300); // past the 1 s deadline, every call
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        Throwing throwing = new Throwing();
        MetricsLike metrics = new MetricsLike();
        HealthRegistry registry = HealthRegistry.builder()
                .listener(hanging).listener(slow).listener(throwing).listener(metrics)
                .register(Check.builder("a", () -> Health.up().withDetail("n", aRuns.incrementAndGet()))
                        .interval(Duration.ofMillis(40)).build())
                .register(Check.builder("flips", () -> {
                    int n = flipRuns.incrementAndGet();
                    return (n % 2 == 1 ? Health.up() : Health.down("flipped")).withDetail("n", n);
                }).interval(Duration.ofMillis(40)).build())
                .build();
        closeables.add(registry);
        registry.start();

        await().atMost(Duration.ofSeconds(60)).until(() -> aRuns.get() >= 60 && flipRuns.get() >= 60
                && registry.skippedNotifications() > 0 && slowCalls.get() >= 2);
        assertThat(hung.get()).as("the hanging listener holds its one call").isEqualTo(1);
        // Every recorded execution reached the metrics listener, in order, none skipped or dropped.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(metrics.seen.get("a")).hasSizeGreaterThanOrEqualTo(60);
            assertThat(metrics.seen.get("flips")).hasSizeGreaterThanOrEqualTo(60);
        });
        for (String check : List.of("a", "flips")) {
            List<Long> runs = metrics.seen.get(check);
            for (int i = 0; i < runs.size(); i++) {
                assertThat(runs.get(i)).as("%s: execution %d told, in order, none lost", check, i + 1).isEqualTo(i + 1L);
            }
        }
        // The transition log kept up too: one line per flip, no gap (first result UP: no line).
        int flipsSeen = metrics.seen.get("flips").size();
        await().atMost(Duration.ofSeconds(30)).until(() -> transitionLines("flips") >= flipsSeen - 1);
        List<String> lines = logged.stream().map(LogRecord::getParameters).filter(p -> p != null && p.length == 3
                && "flips".equals(p[0])).map(p -> String.valueOf(p[1])).collect(Collectors.toList());
        for (int i = 0; i < flipsSeen - 1; i++) {
            assertThat(lines.get(i)).as("transition %d", i + 1).isEqualTo(i % 2 == 0 ? "DOWN" : "UP");
        }

        // The throwing listener: one WARNING with its class and one stack trace, every failure counted.
        assertThat(throwing.calls.get()).isGreaterThan(50);
        assertThat(registry.failedNotifications()).isEqualTo(throwing.calls.get());
        List<LogRecord> threw = logged.stream().filter(r -> r.getMessage().contains(" threw ")).collect(Collectors.toList());
        assertThat(threw).hasSize(1);
        assertThat(threw.get(0).getMessage()).contains(Throwing.class.getName())
                .contains("IllegalStateException: webhook said 500").contains("check '");
        assertThat(logged.stream().filter(r -> r.getThrown() != null)).as("stack traces logged").hasSize(1);
        // Slow episodes are each reported once: never a line per skipped notice.
        long slowWarnings = logged.stream().filter(r -> r.getMessage().contains("in one call for over")).count();
        assertThat(slowWarnings).isPositive().isLessThan(registry.skippedNotifications());
        // Bounded threads: Vitals' own delivery 1, the application's at most 4 (two stuck + two).
        assertThat(registry.listenerThreads()).isLessThanOrEqualTo(1 + Notifications.APPLICATION_MAX_THREADS);
        registry.close();
        await().atMost(Duration.ofSeconds(30)).until(() -> registry.listenerThreads() == 0);
    }

    @Test
    void aThrowingListenerIsLoggedOncePerTransitionWithItsClassThenCounted() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(1);
        // Throws on calls 1-5 and 11-15, returns normally otherwise.
        HealthListener flaky = new HealthListener() {
            @Override
            public void onExecution(Check check, Health health, boolean timedOut) {
                int n = calls.incrementAndGet();
                if (n == 20) {
                    done.countDown();
                }
                if (n <= 5 || (n > 10 && n <= 15)) {
                    throw new IllegalArgumentException("bad " + n);
                }
            }
        };
        HealthRegistry registry = HealthRegistry.builder().listener(flaky)
                .register(Check.builder("a", () -> Health.up().withDetail("n", runs.incrementAndGet()))
                        .interval(Duration.ofMillis(20)).build())
                .build();
        closeables.add(registry);
        registry.start();
        assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
        registry.close();

        assertThat(registry.failedNotifications()).isEqualTo(10);
        String cls = flaky.getClass().getName();
        List<String> messages = logged.stream().map(ListenerIsolationTest::text).filter(m -> m.contains(cls))
                .collect(Collectors.toList());
        assertThat(messages).hasSize(4);
        assertThat(messages.get(0)).contains("threw java.lang.IllegalArgumentException: bad 1");
        assertThat(messages.get(1)).contains("returns normally again after 5 failed calls");
        assertThat(messages.get(2)).contains("threw java.lang.IllegalArgumentException: bad 11");
        assertThat(messages.get(3)).contains("returns normally again");
        assertThat(logged.stream().filter(r -> r.getThrown() != null)).as("one stack trace per transition").hasSize(2);
    }

    @Test
    void aFullQueueDropsTheOldestNoticesAndCountsThem() throws Exception {
        // A manual clock never passes the deadline, so the blocked listener is never "slow": its
        // queue fills instead.
        ManualClock clock = ManualClock.create();
        CountDownLatch inFirstCall = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<Long> seen = new CopyOnWriteArrayList<>();
        HealthListener blocked = (check, health, timedOut) -> {
            seen.add(((Number) health.details().get("n")).longValue());
            inFirstCall.countDown();
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        // The scheduler takes the transition log's turns: none here (no transition is submitted).
        Notifications notifications = new Notifications(clock, new ManualScheduler(clock), List.of(blocked));
        closeables.add(notifications::close);
        Check check = Check.builder("a", Health::up).build();
        Notifications.Lane lane = notifications.lanesFor(check).get(1);
        lane.submit(notice(1));
        assertThat(inFirstCall.await(30, TimeUnit.SECONDS)).isTrue();
        int total = 1 + Notifications.MAX_QUEUED + 500;
        for (int n = 2; n <= total; n++) {
            lane.submit(notice(n));
        }
        assertThat(notifications.dropped()).isEqualTo(500);
        assertThat(notifications.skipped()).isZero();
        assertThat(logged.stream().filter(r -> r.getMessage().contains("notices waiting: the oldest are dropped")))
                .hasSize(1);
        release.countDown();
        await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 1 + Notifications.MAX_QUEUED);
        assertThat(seen.get(1)).as("the oldest 500 after the first call were dropped").isEqualTo(502L);
        assertThat(seen.get(seen.size() - 1)).isEqualTo((long) total);
        await().atMost(Duration.ofSeconds(30)).until(() -> logged.stream()
                .anyMatch(r -> r.getMessage().contains("caught up") && r.getParameters()[1].equals(500L)));
    }

    @Test
    void applicationListenersShareBoundedThreadsAndVitalsOwnDeliveryIsNeverAmongThem() throws Exception {
        // Six application listeners that all hang: they hold at most APPLICATION_MAX_THREADS threads;
        // the metrics-like listener, on Vitals' own delivery, still gets every notice.
        AtomicInteger runs = new AtomicInteger();
        MetricsLike metrics = new MetricsLike();
        HealthRegistry.Builder b = HealthRegistry.builder();
        AtomicInteger inCalls = new AtomicInteger();
        for (int i = 0; i < 6; i++) {
            b.listener((check, health, timedOut) -> {
                inCalls.incrementAndGet();
                try {
                    releaseAll.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        HealthRegistry registry = b.listener(metrics)
                .register(Check.builder("a", () -> Health.up().withDetail("n", runs.incrementAndGet()))
                        .interval(Duration.ofMillis(40)).build())
                .build();
        closeables.add(registry);
        registry.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> runs.get() >= 100);
        await().atMost(Duration.ofSeconds(30)).until(() -> metrics.seen.get("a").size() >= 100);
        assertThat(inCalls.get()).as("four threads, each held by one hanging listener").isEqualTo(4);
        assertThat(registry.listenerThreads()).isEqualTo(1 + Notifications.APPLICATION_MAX_THREADS);
        List<Long> seen = metrics.seen.get("a");
        for (int i = 0; i < seen.size(); i++) {
            assertThat(seen.get(i)).isEqualTo(i + 1L);
        }
    }

    @Test
    void metricsAndApplicationListenersWhoseCallsDoNotOverlapShareOneThread() throws Exception {
        // Issue 37: two deliveries cost two threads in the Spring starter (the metrics and the
        // availability events); one thread serves both kinds when their calls do not overlap, and
        // a thread made for an overlap ends 2 s after it, not 30 s.
        AtomicInteger runs = new AtomicInteger();
        MetricsLike metrics = new MetricsLike();
        Set<String> appThreads = ConcurrentHashMap.newKeySet();
        AtomicInteger appCalls = new AtomicInteger();
        HealthRegistry registry = HealthRegistry.builder()
                .listener((check, health, timedOut) -> { // registered first, served after the metrics
                    appThreads.add(Thread.currentThread().getName());
                    appCalls.incrementAndGet();
                })
                .listener(metrics)
                .register(Check.builder("a", () -> Health.up().withDetail("n", runs.incrementAndGet()))
                        .interval(Duration.ofMillis(30)).build())
                .build();
        closeables.add(registry);
        Executor callbacks = registry.callbacks("events");
        registry.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> metrics.seen.getOrDefault("a", List.of()).size() >= 60);
        AtomicInteger tasks = new AtomicInteger();
        for (int i = 0; i < 20; i++) {
            callbacks.execute(tasks::incrementAndGet);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> tasks.get() == 20);
        await().atMost(Duration.ofSeconds(30)).until(() -> registry.listenerThreads() == 1);
        int calls = appCalls.get();
        await().atMost(Duration.ofSeconds(30)).until(() -> appCalls.get() >= calls + 30);
        assertThat(registry.listenerThreads()).as("one thread for the metrics, a listener and callbacks").isEqualTo(1);
        assertThat(appThreads).allMatch(n -> n.startsWith("vitals-listener-"));
        List<Long> seen = metrics.seen.get("a");
        for (int i = 0; i < seen.size(); i++) {
            assertThat(seen.get(i)).as("every notice, in order").isEqualTo(i + 1L);
        }
    }

    @Test
    void theTransitionWarningCarriesAtMost1024CharactersOfTheCheckMessageEscaped() throws Exception {
        // Issue 40: a check's 5 MB message went whole into the WARNING, line ends included.
        String huge = "first line\r\nforged: line" + "m".repeat(5 * 1024 * 1024);
        HealthRegistry registry = HealthRegistry.builder()
                .register(Check.builder("big", () -> Health.down(huge)).interval(Duration.ofMillis(50)).build())
                .build();
        closeables.add(registry);
        registry.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> transitionLines("big") > 0);
        LogRecord line = logged.stream().filter(r -> r.getParameters() != null && r.getParameters().length == 3
                && "big".equals(r.getParameters()[0])).findFirst().orElseThrow();
        String shown = text(line);
        assertThat(line.getLevel()).isEqualTo(Level.WARNING);
        assertThat(shown).startsWith("check 'big' is DOWN: first line\\x0d\\x0aforged: linemmm")
                .endsWith("…(" + (huge.length() - Notifications.LOG_MESSAGE_CHARS) + " more chars)")
                .doesNotContain("\n").doesNotContain("\r");
        assertThat(shown.length()).isLessThan(Notifications.LOG_MESSAGE_CHARS + 100);
    }

    @Test
    void aCheckThatStaysDownForAnotherReasonIsLoggedAgainButNotForItsCounters() throws Exception {
        // A fresh user's finding: the agent's only line read "waiting for the application to listen"
        // while the application answered 503 (the status stayed DOWN, so no line was written).
        AtomicInteger runs = new AtomicInteger();
        HealthRegistry registry = HealthRegistry.builder()
                .register(Check.builder("r", () -> {
                    int n = runs.incrementAndGet();
                    return n <= 5 ? Health.down("waiting " + (n * 1000) + " ms for the port") : Health.down("answered 503");
                }).interval(Duration.ofMillis(40)).build())
                .build();
        closeables.add(registry);
        registry.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> runs.get() >= 12);
        await().atMost(Duration.ofSeconds(30)).until(() -> transitionLines("r") >= 2);
        Thread.sleep(200); // the scheduler's turns for the runs above
        List<String> lines = logged.stream().filter(r -> r.getParameters() != null && r.getParameters().length == 3
                && "r".equals(r.getParameters()[0])).map(ListenerIsolationTest::text).collect(Collectors.toList());
        assertThat(lines).containsExactly("check 'r' is DOWN: waiting 1000 ms for the port", "check 'r' is DOWN: answered 503");
    }

    @Test
    void hungCheckCostsItsOwnThreadAndNoMoreItsTransitionIsLoggedOnTheScheduler() throws Exception {
        // Issue 37: 200 requests on a hung on-demand check cost the check's own thread and, before,
        // a vitals-listener thread for its DOWN line; the line is now written by the scheduler.
        CountDownLatch never = new CountDownLatch(1);
        HealthRegistry registry = HealthRegistry.builder()
                .register(Check.builder("process", Health::up).inline(true).build())
                .register(Check.builder("hung", () -> {
                    never.await();
                    return Health.up();
                }).mode(Mode.ON_DEMAND).timeout(Duration.ofMillis(100)).build())
                .build();
        closeables.add(() -> {
            never.countDown();
            registry.close();
        });
        registry.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> registry.report(Groups.READINESS).checks().get("process").status() == Status.UP);
        List<Thread> before = List.copyOf(Thread.getAllStackTraces().keySet());
        for (int i = 0; i < 50; i++) {
            assertThat(registry.evaluate(Groups.READINESS).get(30, TimeUnit.SECONDS).status()).isEqualTo(Status.DOWN);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> transitionLines("hung") == 1);
        LogRecord line = logged.stream().filter(r -> r.getParameters() != null && r.getParameters().length == 3
                && "hung".equals(r.getParameters()[0])).findFirst().orElseThrow();
        assertThat(text(line)).startsWith("check 'hung' is DOWN: timed out after 100 ms");
        Thread scheduler = before.stream().filter(t -> t.getName().equals("vitals-scheduler")
                && t.getId() == line.getLongThreadID()).findFirst().orElse(null);
        assertThat(scheduler).as("the DOWN line written by a vitals-scheduler thread").isNotNull();
        List<String> added = Thread.getAllStackTraces().keySet().stream().filter(t -> !before.contains(t))
                .map(Thread::getName).filter(n -> n.startsWith("vitals-")).collect(Collectors.toList());
        assertThat(added).as("threads the hung check added").hasSize(1);
        assertThat(added.get(0)).startsWith("vitals-check-");
        assertThat(registry.listenerThreads()).isZero();
    }

    @Test
    void callbacksRunWhereApplicationListenersDoAndAHangingOneIsAStuckListener() throws Exception {
        // Issue 37: the Spring starter hands Spring's availability events to registry.callbacks(..)
        // instead of a thread of its own. A task that hangs there must stop neither the checks, nor
        // the application's listeners, nor another callback; its later tasks are skipped and counted.
        AtomicInteger runs = new AtomicInteger();
        AtomicInteger told = new AtomicInteger();
        HealthRegistry registry = HealthRegistry.builder()
                .listener((check, health, timedOut) -> told.incrementAndGet())
                .register(Check.builder("a", () -> Health.up().withDetail("n", runs.incrementAndGet()))
                        .interval(Duration.ofMillis(40)).build())
                .build();
        closeables.add(registry);
        registry.start();
        java.util.concurrent.Executor hangs = registry.callbacks("spring-availability");
        java.util.concurrent.Executor other = registry.callbacks("other");
        CountDownLatch inHangingTask = new CountDownLatch(1);
        List<String> taskThreads = new CopyOnWriteArrayList<>();
        hangs.execute(() -> {
            taskThreads.add(Thread.currentThread().getName());
            inHangingTask.countDown();
            try {
                releaseAll.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(inHangingTask.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(taskThreads.get(0)).startsWith("vitals-listener-");

        int runsThen = runs.get();
        int toldThen = told.get();
        await().atMost(Duration.ofSeconds(60)).until(() -> runs.get() >= runsThen + 50 && told.get() >= toldThen + 50);
        CountDownLatch otherRan = new CountDownLatch(1);
        other.execute(() -> {
            taskThreads.add(Thread.currentThread().getName());
            otherRan.countDown();
        });
        assertThat(otherRan.await(30, TimeUnit.SECONDS)).as("another callback runs beside the hanging one").isTrue();
        assertThat(taskThreads.get(1)).startsWith("vitals-listener-").isNotEqualTo(taskThreads.get(0));

        // Past the 1 s deadline the hanging callback is slow: what is handed to it is skipped, counted, logged once.
        long skippedBefore = registry.skippedNotifications();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
            hangs.execute(() -> taskThreads.add("must not run"));
            return registry.skippedNotifications() >= skippedBefore + 3;
        });
        assertThat(logged.stream().map(ListenerIsolationTest::text)
                .filter(m -> m.startsWith("callback 'spring-availability' has been in one call for over 1000 ms (a task arrived)")))
                .hasSize(1);

        // A task that throws is counted and logged once, naming the callback.
        CountDownLatch threw = new CountDownLatch(1);
        other.execute(() -> {
            threw.countDown();
            throw new IllegalStateException("listener failed");
        });
        assertThat(threw.await(30, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> registry.failedNotifications() == 1);
        await().atMost(Duration.ofSeconds(30)).until(() -> logged.stream().map(ListenerIsolationTest::text)
                .anyMatch(m -> m.startsWith("callback 'other' threw java.lang.IllegalStateException: listener failed;")));
        assertThat(registry.listenerThreads()).isLessThanOrEqualTo(Notifications.APPLICATION_MAX_THREADS);

        releaseAll.countDown();
        await().atMost(Duration.ofSeconds(30)).until(() -> logged.stream().map(ListenerIsolationTest::text)
                .anyMatch(m -> m.startsWith("callback 'spring-availability' returned;")));
        assertThat(taskThreads).doesNotContain("must not run");
    }

    @Test
    void aCallbackNameIsCheckedInOneLine() {
        HealthRegistry registry = HealthRegistry.builder().build();
        closeables.add(registry);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> registry.callbacks("spring events"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("callback name must be letters, digits, '.', '_' or '-', was 'spring events'");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> registry.callbacks(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("callback name must be letters, digits, '.', '_' or '-', was null");
    }

    private static String text(LogRecord r) {
        return new java.util.logging.SimpleFormatter().formatMessage(r);
    }

    private static Notifications.Notice notice(long n) {
        Health h = Health.up().withDetail("n", n);
        return new Notifications.Notice(h, h, false, false);
    }

    private long transitionLines(String check) {
        return logged.stream().filter(r -> r.getParameters() != null && r.getParameters().length == 3
                && check.equals(r.getParameters()[0])).count();
    }
}
