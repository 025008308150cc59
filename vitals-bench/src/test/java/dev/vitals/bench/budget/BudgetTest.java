package dev.vitals.bench.budget;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * {@code bench/budget} catches a regression (issue 37): the hung-check count, measured as the
 * budget measures it, fails the run when a thread is deliberately added, and passes without it.
 */
class BudgetTest {

    @Test
    void aDeliberatelyAddedThreadMakesTheHungCheckBudgetFail() throws Exception {
        // A thread deliberately added where the hung check times out, as a delivery thread for its
        // DOWN line was before issue 37: a listener that starts one at the first timed-out execution.
        CountDownLatch end = new CountDownLatch(1);
        AtomicBoolean started = new AtomicBoolean();
        Budget.Line regressed;
        try {
            regressed = Budget.hungCheckThreads(b -> b.listener((check, health, timedOut) -> {
                if (timedOut && started.compareAndSet(false, true)) {
                    Thread t = new Thread(() -> {
                        try {
                            end.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }, "deliberately-added");
                    t.setDaemon(true);
                    t.start();
                }
            }));
        } finally {
            end.countDown();
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = Budget.print(List.of(regressed), new PrintStream(out, true, StandardCharsets.UTF_8));
        assertThat(regressed.measured()).as(regressed.note()).isEqualTo(Budget.HUNG_THREADS + 1);
        assertThat(regressed.note()).contains("deliberately-added");
        assertThat(status).as("exit status").isEqualTo(1);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("hung check, threads added by 200 requests").contains("OVER");

        Budget.Line asBuilt = Budget.hungCheckThreads(b -> b);
        assertThat(asBuilt.measured()).as(asBuilt.note()).isLessThanOrEqualTo(Budget.HUNG_THREADS);
        assertThat(Budget.print(List.of(asBuilt), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
                .isZero();
    }
}
