package dev.vitals.kubesim.cli;

import java.util.concurrent.TimeUnit;

/**
 * A stand-in for the demo service in {@link InterruptedRunTest}'s replay: it never answers a
 * probe, starts a child of its own ({@code sleep 300}) and waits, bounded, so that a replay has a
 * process tree to reap when it is interrupted.
 */
public final class SleepingDemo {
    private SleepingDemo() {
    }

    /**
     * @param args ignored (the replay's demo flags)
     * @throws Exception never expected
     */
    public static void main(String[] args) throws Exception {
        Process child = new ProcessBuilder("sleep", "300").redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        child.waitFor(300, TimeUnit.SECONDS);
    }
}
