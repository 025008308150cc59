package dev.vitals.agent.impl;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class AgentLogTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private String written() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void oneLinePerMessageWithTheLevelUnlessInfo() {
        AgentLog log = new AgentLog("dev.vitals", Level.INFO, out);
        log.log(Level.INFO, "probe server listening");
        log.log(Level.WARNING, "check {0} took {1} ms", "db", 12);
        log.log(Level.DEBUG, "not written");
        assertThat(written()).isEqualTo("vitals-agent: probe server listening" + System.lineSeparator()
                + "vitals-agent: WARNING: check db took 12 ms" + System.lineSeparator());
    }

    @Test
    void aThrowableIsOneLineUnlessDebug() {
        AgentLog log = new AgentLog("dev.vitals", Level.INFO, out);
        log.log(Level.ERROR, "listener failed", new IllegalStateException("boom"));
        assertThat(written()).isEqualTo("vitals-agent: ERROR: listener failed: java.lang.IllegalStateException: boom"
                + System.lineSeparator());

        bytes.reset();
        AgentLog debug = new AgentLog("dev.vitals", Level.DEBUG, out);
        debug.log(Level.DEBUG, "cannot instrument", new IllegalStateException("boom"));
        assertThat(written()).startsWith("vitals-agent: DEBUG: cannot instrument: java.lang.IllegalStateException: boom")
                .contains("\tat dev.vitals.agent.impl.AgentLogTest");
    }

    @Test
    void offWritesNothingAndLevelsFilter() {
        AgentLog off = new AgentLog("dev.vitals", Level.OFF, out);
        off.log(Level.ERROR, "nothing");
        assertThat(off.isLoggable(Level.ERROR)).isFalse();
        AgentLog warning = new AgentLog("dev.vitals", Level.WARNING, out);
        assertThat(warning.isLoggable(Level.INFO)).isFalse();
        assertThat(warning.isLoggable(Level.ERROR)).isTrue();
        assertThat(warning.isLoggable(Level.OFF)).isFalse();
        assertThat(written()).isEmpty();
    }
}
