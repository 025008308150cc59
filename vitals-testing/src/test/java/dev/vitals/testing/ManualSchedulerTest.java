package dev.vitals.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import dev.vitals.Scheduler;
import org.junit.jupiter.api.Test;

/** The fakes' own contract: what every module's deterministic tests (and kubesim's virtual time) rely on. */
class ManualSchedulerTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final List<String> ran = new ArrayList<>();

    @Test
    void tasksRunInDueOrderTiesInSchedulingOrderWithTheClockAtTheirDueTime() {
        scheduler.schedule(Duration.ofSeconds(2).toNanos(), () -> ran.add("b@" + scheduler.clock().monotonicTime()));
        scheduler.schedule(Duration.ofSeconds(1).toNanos(), () -> ran.add("a@" + scheduler.clock().monotonicTime()));
        scheduler.schedule(Duration.ofSeconds(2).toNanos(), () -> ran.add("c@" + scheduler.clock().monotonicTime()));
        scheduler.schedule(Duration.ofSeconds(5).toNanos(), () -> ran.add("late"));

        scheduler.advance(Duration.ofSeconds(3));

        assertThat(ran).containsExactly("a@1000000000", "b@2000000000", "c@2000000000");
        assertThat(scheduler.clock().monotonicTime()).isEqualTo(Duration.ofSeconds(3).toNanos());
        assertThat(scheduler.pending()).isEqualTo(1);
    }

    @Test
    void aTaskScheduledWhileAdvancingRunsInTheSameCallWhenItFallsWithinTheTarget() {
        scheduler.schedule(Duration.ofSeconds(1).toNanos(), () -> {
            ran.add("first");
            scheduler.schedule(Duration.ofSeconds(1).toNanos(), () -> ran.add("second@" + scheduler.clock().monotonicTime()));
        });

        scheduler.advance(Duration.ofSeconds(2));

        assertThat(ran).containsExactly("first", "second@2000000000");
    }

    @Test
    void aCancelledTaskNeverRunsAndRunDueDoesNotMoveTheClock() {
        scheduler.schedule(0, () -> ran.add("now"));
        scheduler.schedule(Duration.ofSeconds(1).toNanos(), () -> ran.add("cancelled")).cancel();
        long wall = scheduler.clock().wallTime();

        scheduler.runDue();
        assertThat(ran).containsExactly("now");
        assertThat(scheduler.clock().wallTime()).isEqualTo(wall);

        scheduler.advance(Duration.ofMinutes(1));
        assertThat(ran).containsExactly("now");
        assertThat(scheduler.clock().wallTime()).isEqualTo(wall + 60_000);
    }

    @Test
    void timeNeverGoesBack() {
        assertThatThrownBy(() -> scheduler.advance(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("a clock cannot go back, was PT-0.001S");
        assertThatThrownBy(() -> scheduler.clock().add(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a clock cannot go back");
    }

    /** The heap keeps (due, scheduling order) under interleaved schedules, cancels and runs: against a sorted reference. */
    @Test
    void manyTasksWithCancelsRunInTheSameOrderAsASortedReference() {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(37);
        java.util.TreeMap<Long, long[]> expected = new java.util.TreeMap<>(); // sequence -> {due}
        List<Long> order = new ArrayList<>();
        List<Scheduler.Cancellable> handles = new ArrayList<>();
        long seq = 0;
        for (int i = 0; i < 5000; i++) {
            long due = rnd.nextInt(2000);
            long s = seq++;
            handles.add(scheduler.schedule(due, () -> order.add(s)));
            expected.put(s, new long[] {due});
            if (rnd.nextInt(4) == 0) {
                long victim = rnd.nextLong(seq);
                handles.get((int) victim).cancel();
                handles.get((int) victim).cancel(); // twice: the second does nothing
                expected.remove(victim);
            }
        }
        assertThat(scheduler.pending()).isEqualTo(expected.size());

        scheduler.advance(Duration.ofNanos(2000));

        List<Long> sorted = expected.entrySet().stream()
                .sorted(java.util.Comparator.<java.util.Map.Entry<Long, long[]>>comparingLong(e -> e.getValue()[0])
                        .thenComparingLong(java.util.Map.Entry::getKey))
                .map(java.util.Map.Entry::getKey).toList();
        assertThat(order).isEqualTo(sorted);
        assertThat(scheduler.pending()).isZero();
    }

    /** Tasks with no delay (most of a model's) keep (due, scheduling order) with the others, also those scheduled while running. */
    @Test
    void noDelayTasksMergeInSchedulingOrderIncludingNestedOnesAndCancels() {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(7);
        List<long[]> expected = new ArrayList<>(); // {due, seq} of every task that should run
        List<Long> order = new ArrayList<>();
        long[] seq = {0};
        Runnable[] spawn = new Runnable[1];
        List<Scheduler.Cancellable> handles = new ArrayList<>();
        List<long[]> keys = new ArrayList<>();
        spawn[0] = () -> {
            for (int k = 0; k < 2 && seq[0] < 4000; k++) {
                long delay = rnd.nextInt(3) == 0 ? rnd.nextInt(50) : 0;
                long s = seq[0]++;
                long due = scheduler.clock().monotonicTime() + delay;
                handles.add(scheduler.schedule(delay, () -> {
                    order.add(s);
                    spawn[0].run();
                }));
                keys.add(new long[] {due, s});
                if (rnd.nextInt(10) == 0) {
                    int victim = rnd.nextInt(handles.size());
                    handles.get(victim).cancel();
                }
            }
        };
        scheduler.schedule(0, spawn[0]);
        scheduler.clock().add(Duration.ofNanos(5)); // a clock moved by hand: the no-delay task is still due first
        scheduler.advance(Duration.ofSeconds(1));

        assertThat(scheduler.pending()).isZero();
        for (int i = 1; i < order.size(); i++) {
            long[] a = keys.get((int) (long) order.get(i - 1));
            long[] b = keys.get((int) (long) order.get(i));
            assertThat(a[0] < b[0] || (a[0] == b[0] && a[1] < b[1])).as("task %d before %d", a[1], b[1]).isTrue();
        }
        assertThat(order).hasSizeGreaterThan(1000);
    }

    /**
     * Delays from nanoseconds to minutes (the near heap, the wheel's buckets, around it more than
     * once, and the far heap), ties, cancels everywhere, tasks scheduled while running, and advances
     * of every length: the order is (due, scheduling order), as a sorted reference has it.
     */
    @Test
    void delaysAcrossTheWheelAndBeyondKeepDueThenSchedulingOrder() {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(41);
        List<long[]> keys = new ArrayList<>(); // {due, seq}
        List<Long> order = new ArrayList<>();
        List<Scheduler.Cancellable> handles = new ArrayList<>();
        java.util.Set<Long> cancelled = new java.util.HashSet<>();
        long[] scales = {1, 1_000, 1_000_000, 2_097_152, 100_000_000, 1_000_000_000, 20_000_000_000L, 600_000_000_000L};
        Runnable[] spawn = new Runnable[1];
        spawn[0] = () -> {
            for (int k = 0; k < 2 && keys.size() < 20_000; k++) {
                long scale = scales[rnd.nextInt(scales.length)];
                long delay = rnd.nextInt(5) == 0 ? 0 : scale * rnd.nextInt(4); // 0 · scale: a tie with now
                long s = keys.size();
                keys.add(new long[] {scheduler.clock().monotonicTime() + Math.max(0, delay), s});
                handles.add(scheduler.schedule(delay, () -> {
                    order.add(s);
                    spawn[0].run();
                }));
                if (rnd.nextInt(8) == 0) {
                    int victim = rnd.nextInt(handles.size());
                    handles.get(victim).cancel();
                    if (!order.contains((long) victim)) {
                        cancelled.add((long) victim); // else it ran already: the cancel does nothing
                    }
                }
            }
        };
        for (int i = 0; i < 50; i++) {
            spawn[0].run();
        }
        while (scheduler.pending() > 0) {
            scheduler.advance(Duration.ofNanos(scales[rnd.nextInt(scales.length)] * rnd.nextInt(3)));
        }

        for (int i = 1; i < order.size(); i++) {
            long[] a = keys.get((int) (long) order.get(i - 1));
            long[] b = keys.get((int) (long) order.get(i));
            assertThat(a[0] < b[0] || (a[0] == b[0] && a[1] < b[1])).as("task %d before %d", a[1], b[1]).isTrue();
        }
        java.util.Set<Long> ran = new java.util.HashSet<>(order);
        assertThat(ran).hasSize(order.size()).doesNotContainAnyElementsOf(cancelled);
        assertThat(order.size() + cancelled.size()).isEqualTo(keys.size());
        assertThat(order).hasSizeGreaterThan(10_000);
    }

    /** The one-thread form runs the same tasks in the same order at the same times as the shared one. */
    @Test
    void aConfinedSchedulerRunsTheSameTasksInTheSameOrderAtTheSameTimes() {
        List<String> shared = workload(new ManualScheduler());

        assertThat(workload(ManualScheduler.confined())).isEqualTo(shared);
        assertThat(shared).hasSizeGreaterThan(1000);
    }

    /** @return "task@time" of every task run: nested schedules from 0 to 40 s, a tenth cancelled, run for an hour */
    private static List<String> workload(ManualScheduler s) {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(5);
        List<String> ran = new ArrayList<>();
        List<Scheduler.Cancellable> handles = new ArrayList<>();
        Runnable[] spawn = new Runnable[1];
        spawn[0] = () -> {
            for (int k = 0; k < 2 && handles.size() < 5000; k++) {
                int id = handles.size();
                handles.add(s.schedule(rnd.nextInt(3) == 0 ? 0 : rnd.nextLong(40_000_000_000L), () -> {
                    ran.add(id + "@" + s.clock().monotonicTime());
                    spawn[0].run();
                }));
                if (rnd.nextInt(10) == 0) {
                    handles.get(rnd.nextInt(handles.size())).cancel();
                }
            }
        };
        spawn[0].run();
        s.advance(Duration.ofHours(1));
        assertThat(s.pending()).isZero();
        return ran;
    }
}
