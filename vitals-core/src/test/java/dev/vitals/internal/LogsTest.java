package dev.vitals.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LogsTest {
    @AfterEach
    void systemLoggerAgain() {
        Logs.sink(null);
    }

    @Test
    void aLoggerResolvesAtItsFirstUseToTheSinkSetBeforeIt() {
        System.Logger early = Logs.get("dev.vitals.test"); // held in a static field before the sink is set
        List<String> lines = new ArrayList<>();
        List<String> made = new ArrayList<>();
        Logs.sink(name -> {
            made.add(name);
            return new Recording(name, lines);
        });
        assertThat(made).isEmpty();
        early.log(System.Logger.Level.INFO, "first");
        early.log(System.Logger.Level.WARNING, "second");
        assertThat(lines).containsExactly("INFO first", "WARNING second");
        assertThat(made).containsExactly("dev.vitals.test");
        assertThat(early.getName()).isEqualTo("dev.vitals.test");
    }

    @Test
    void withoutASinkTheJdksLoggerIsUsed() {
        System.Logger log = Logs.get("dev.vitals.test.jdk");
        assertThat(log.isLoggable(System.Logger.Level.ERROR)).isTrue(); // java.util.logging's default: INFO and above
        assertThat(log.isLoggable(System.Logger.Level.TRACE)).isFalse();
    }

    private static final class Recording implements System.Logger {
        private final String name;
        private final List<String> lines;

        Recording(String name, List<String> lines) {
            this.name = name;
            this.lines = lines;
        }

        @Override
        public String getName() {
            return name;
        }

        @Override
        public boolean isLoggable(Level level) {
            return true;
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
            lines.add(level + " " + msg);
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            lines.add(level + " " + format);
        }
    }
}
