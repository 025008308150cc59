package dev.vitals.agent;

import java.util.logging.LogManager;

/**
 * A child JVM's main for {@link AgentLoggingIT}: waits until the agent's probe thread runs (the
 * agent has started and logged), then chooses its own {@code java.util.logging.manager}, as
 * Quarkus and JBoss applications do in {@code main}, and prints the manager the JDK made.
 */
public final class JulManagerApp {
    /** The application's own manager. */
    public static final class OwnManager extends LogManager {
        /** Public: the JDK instantiates it by name. */
        public OwnManager() {
            super();
        }
    }

    private JulManagerApp() {
    }

    /**
     * @param args none
     * @throws InterruptedException never in practice
     */
    public static void main(String[] args) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (Thread.getAllStackTraces().keySet().stream().noneMatch(t -> t.getName().startsWith("vitals-probe"))) {
            if (System.nanoTime() > deadline) {
                System.out.println("no agent probe thread in 60 s");
                System.exit(1);
            }
            Thread.sleep(50);
        }
        Thread.sleep(500); // its start-up lines written
        System.setProperty("java.util.logging.manager", OwnManager.class.getName());
        System.out.println("manager: " + LogManager.getLogManager().getClass().getName());
        System.out.flush();
        Runtime.getRuntime().halt(0); // the agent's drain would wait on exit: not what is tested
    }
}
