package dev.vitals.kubesim.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The worker's schedule alone (worker.go's ticker and manual trigger), on virtual time: an
 * evaluation that takes 1.5 s under a 1 s period shows the queueing of R18 and R19.
 */
class ProbeTickerTest {
    private final VirtualTime time = new VirtualTime();
    private final List<Double> runs = new ArrayList<>();
    private ProbeTicker ticker;

    /** An evaluation that stays in flight {@code seconds}. */
    private ProbeTicker ticker(double seconds) {
        ticker = new ProbeTicker(time, Duration.ofSeconds(1).toNanos(), () -> {
            runs.add(time.monotonicTime() / 1e9);
            ticker.evaluationStarted();
            time.schedule(Math.round(seconds * 1e9), () -> {
                ticker.evaluationDone();
                ticker.runQueued();
            });
        });
        return ticker;
    }

    @Test
    void r18_ticksDuringAnEvaluationCollapseIntoOneRunAfterIt() {
        ticker(2.5).begin();
        time.advance(Duration.ofMillis(5_600));
        // 0 → in flight until 2.5 (ticks at 1 and 2 collapse): 2.5 → until 5.0 (ticks 3, 4): 5.0
        assertThat(runs).containsExactly(0.0, 2.5, 5.0);
    }

    @Test
    void r19_aManualRunDuringAnEvaluationSupersedesTheQueuedTickAndRestartsTheTicker() {
        ticker(1.5).begin();
        time.advance(Duration.ofMillis(1_200)); // tick at 1.0 queued behind the run from 0
        ticker.manualTrigger();
        ticker.manualTrigger(); // collapses into the first
        time.advance(Duration.ofMillis(2_000)); // to 3.2
        // the run at 1.5 is the manual one (not the tick, and once): the ticker restarts there, next tick 2.5 is
        // queued behind it (in flight until 3.0), so it runs at 3.0
        assertThat(runs).containsExactly(0.0, 1.5, 3.0);
        assertThat(ticker.phase()).isEqualTo(ProbeTicker.Phase.IN_FLIGHT);
    }

    @Test
    void r15_aManualRunAskedDuringTheStartJitterRunsRightAfterTheFirstTick() {
        ticker(0.1).beginAfter(Duration.ofMillis(700).toNanos());
        ticker.manualTrigger();
        assertThat(ticker.phase()).isEqualTo(ProbeTicker.Phase.JITTER);
        time.advance(Duration.ofMillis(1_000));
        // tick 0 at 0.7 (in flight until 0.8); the manual run is posted at 0.7, queues, runs at 0.8
        assertThat(runs).containsExactly(0.7, 0.8);
    }

    @Test
    void haltDropsTicksAndManualRuns() {
        ticker(0.1).begin();
        time.advance(Duration.ofMillis(1_500));
        ticker.halt();
        ticker.manualTrigger();
        time.advance(Duration.ofSeconds(5));
        assertThat(runs).containsExactly(0.0, 1.0);
        assertThat(ticker.halted()).isTrue();
    }
}
