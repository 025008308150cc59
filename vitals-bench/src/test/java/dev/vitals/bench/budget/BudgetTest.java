package dev.vitals.bench.budget;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code bench/budget} catches a regression (issue 37): the hung-check count, measured as the
 * budget measures it, fails the run when a thread is deliberately added, and passes without it.
 */
class BudgetTest {

    @Test
    void aDeliberatelyAddedThreadMakesTheHungCheckBudgetFail() throws Exception {
        // An application listener: its delivery starts a vitals-listener-N thread at the hung
        // check's DOWN transition (what the transition log line itself cost before issue 37).
        Budget.Line regressed = Budget.hungCheckThreads(b -> b.listener((check, health, timedOut) -> { }));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = Budget.print(List.of(regressed), new PrintStream(out, true, StandardCharsets.UTF_8));
        assertThat(regressed.measured()).as(regressed.note()).isEqualTo(Budget.HUNG_THREADS + 1);
        assertThat(regressed.note()).contains("vitals-listener-");
        assertThat(status).as("exit status").isEqualTo(1);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("hung check, threads added by 200 requests").contains("OVER");

        Budget.Line asBuilt = Budget.hungCheckThreads(b -> b);
        assertThat(asBuilt.measured()).as(asBuilt.note()).isLessThanOrEqualTo(Budget.HUNG_THREADS);
        assertThat(Budget.print(List.of(asBuilt), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
                .isZero();
    }
}
