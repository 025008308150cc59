package dev.vitals.kubesim.replay;

import java.nio.file.Path;

/** Where {@code vitals-agent.jar} is, for the {@link Wiring#NAIVE_AGENT} runs. */
final class AgentJar {
    private AgentJar() {
    }

    /**
     * @param demoJar the demo jar, normally {@code <repo>/vitals-demo/target/vitals-demo.jar}
     * @return {@code <repo>/vitals-agent/target/vitals-agent.jar} for a demo jar in a checkout, else
     *     {@code vitals-agent.jar} in the demo jar's directory
     */
    static Path besideDemo(Path demoJar) {
        Path dir = demoJar.toAbsolutePath().normalize().getParent();
        if (dir != null && dir.getFileName() != null && dir.getFileName().toString().equals("target")
                && dir.getParent() != null && dir.getParent().getParent() != null) {
            return dir.getParent().getParent().resolve("vitals-agent").resolve("target").resolve("vitals-agent.jar");
        }
        return (dir == null ? Path.of(".") : dir).resolve("vitals-agent.jar");
    }
}
