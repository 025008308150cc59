package dev.vitals.agent.impl;

import net.bytebuddy.agent.ByteBuddyAgent;

/** The agent's pool instrumentation in the test JVM, installed once (as {@code premain} does). */
final class TestInstrumentation {
    private static boolean installed;

    private TestInstrumentation() {
    }

    /** Installs it unless done; call before anything touches {@code WorkerCounter}. */
    static synchronized void install() {
        if (!installed) {
            ExecutorInstrumentation.install(ByteBuddyAgent.install());
            installed = true;
        }
    }
}
