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
        debug.log(Level.WARNING, "scheduled task failed", new IllegalStateException("boom"));
        String trace = written();
        assertThat(trace).startsWith("vitals-agent: WARNING: scheduled task failed: java.lang.IllegalStateException: boom")
                .contains("vitals-agent: WARNING: \tat dev.vitals.agent.impl.AgentLogTest");
        assertThat(trace.lines()).allMatch(l -> l.startsWith("vitals-agent: WARNING: "));
    }

    @Test
    void everyLineOfAMessageIsPrefixedAndNumbersAreAscii() {
        AgentLog log = new AgentLog("dev.vitals", Level.INFO, out);
        log.log(Level.INFO, "line1\nline2\r\nline3");
        java.util.Locale before = java.util.Locale.getDefault();
        try {
            java.util.Locale.setDefault(java.util.Locale.forLanguageTag("ar-EG"));
            log.log(Level.INFO, "{0} notices were dropped", 12345);
        } finally {
            java.util.Locale.setDefault(before);
        }
        assertThat(written().lines()).containsExactly("vitals-agent: line1", "vitals-agent: line2", "vitals-agent: line3",
                "vitals-agent: 12,345 notices were dropped");
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
