package dev.vitals.agent.impl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class AgentOptionsTest {
    /** @return properties from key, value pairs (shared with FrameworksTest) */
    static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    @Test
    void defaultsWhenNothingIsGiven() {
        AgentOptions o = AgentOptions.resolve("", new Properties(), Map.of());
        assertThat(o.enabled).isTrue();
        assertThat(o.port).isEqualTo(9090);
        assertThat(o.appPorts).isEmpty();
        assertThat(o.readiness.kind).isEqualTo(AgentOptions.Readiness.Kind.AUTO);
        assertThat(o.readinessTimeout).isEqualTo(Duration.ofSeconds(2));
        assertThat(o.drainDelay).isEqualTo(Duration.ofSeconds(5));
        assertThat(o.workers).isEmpty();
        assertThat(o.detailsAlways).isFalse();
        assertThat(o.log).isEqualTo(System.Logger.Level.INFO);
    }

    @Test
    void warmUpIsOffUnlessAPathIsGivenAndItsBoundsAreChecked() {
        AgentOptions off = AgentOptions.resolve("", new Properties(), Map.of());
        assertThat(off.warmupPath).isNull();
        AgentOptions on = AgentOptions.resolve("warmup-path=/api/hot?n=1,warmup-requests=50,warmup-latency=20ms,warmup-max-wait=90s",
                new Properties(), Map.of());
        assertThat(on.warmupPath).isEqualTo("/api/hot?n=1");
        assertThat(on.warmupRequests).isEqualTo(50);
        assertThat(on.warmupLatency).isEqualTo(Duration.ofMillis(20));
        assertThat(on.warmupMaxWait).isEqualTo(Duration.ofSeconds(90));
        assertThat(AgentOptions.resolve("", new Properties(), Map.of("VITALS_AGENT_WARMUP_PATH", "/warm")).warmupPath).isEqualTo("/warm");
        assertThatThrownBy(() -> AgentOptions.resolve("warmup-path=api", new Properties(), Map.of()))
                .hasMessage("option 'warmup-path' (agent arguments): expected none or a path starting with /, was 'api'");
        assertThatThrownBy(() -> AgentOptions.resolve("warmup-requests=0", new Properties(), Map.of()))
                .hasMessage("option 'warmup-requests' (agent arguments): expected a whole number from 1 to 1000000, was '0'");
        assertThatThrownBy(() -> AgentOptions.resolve("warmup-max-wait=90m", new Properties(), Map.of()))
                .hasMessage("option 'warmup-max-wait' (agent arguments): must be at most 60m, was '90m'");
    }

    @Test
    void argumentsWinOverSystemPropertiesWhichWinOverEnvironment() {
        AgentOptions o = AgentOptions.resolve("port=7000",
                props("vitals.agent.port", "7001", "vitals.agent.drain-delay", "1s"),
                Map.of("VITALS_AGENT_PORT", "7002", "VITALS_AGENT_DRAIN_DELAY", "2s", "VITALS_AGENT_STALL_AFTER", "30s"));
        assertThat(o.port).isEqualTo(7000);
        assertThat(o.drainDelay).isEqualTo(Duration.ofSeconds(1));
        assertThat(o.stallAfter).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void readinessTakesAPathOrALoopbackUrl() {
        AgentOptions path = AgentOptions.resolve("readiness=/q/health/ready", new Properties(), Map.of());
        assertThat(path.readiness.kind).isEqualTo(AgentOptions.Readiness.Kind.PATH);
        assertThat(path.readiness.path).isEqualTo("/q/health/ready");
        AgentOptions url = AgentOptions.resolve("readiness=http://127.0.0.1:8081/healthcheck?x=1", new Properties(), Map.of());
        assertThat(url.readiness.kind).isEqualTo(AgentOptions.Readiness.Kind.URL);
        assertThat(url.readiness.port).isEqualTo(8081);
        assertThat(url.readiness.path).isEqualTo("/healthcheck?x=1");
        assertThatThrownBy(() -> AgentOptions.resolve("readiness=http://example.com:80/x", new Properties(), Map.of()))
                .hasMessageStartingWith("option 'readiness' (agent arguments): expected auto, none, a path");
    }

    @Test
    void aPathThatCannotBeSentAsARequestTargetIsRefusedWithOneLine() {
        // A fresh user's finding: readiness=/x y was accepted, and every poll sent "GET /x y HTTP/1.1".
        Properties none = new Properties();
        assertThatThrownBy(() -> AgentOptions.resolve("readiness=/x y", none, Map.of()))
                .hasMessageStartingWith("option 'readiness' (agent arguments): a path is sent as it is in the request line")
                .hasMessageEndingWith("was '/x y'");
        assertThatThrownBy(() -> AgentOptions.resolve("", none, Map.of("VITALS_AGENT_READINESS", "/ready\r\nX: 1")))
                .hasMessageContaining("option 'readiness'").hasMessageContaining("no spaces, control or non-ASCII");
        assertThatThrownBy(() -> AgentOptions.resolve("warmup-path=/h\u00e9", none, Map.of()))
                .hasMessageStartingWith("option 'warmup-path' (agent arguments): a path is sent as it is");
        assertThatThrownBy(() -> AgentOptions.resolve("readiness=/a%zz", none, Map.of()))
                .hasMessageStartingWith("option 'readiness' (agent arguments): not a valid path: Malformed escape pair");
        assertThatThrownBy(() -> AgentOptions.resolve("readiness=//host/x", none, Map.of()))
                .hasMessageStartingWith("option 'readiness' (agent arguments): expected a path such as /health/ready");
        assertThat(AgentOptions.resolve("readiness=/a%20b?x=1", none, Map.of()).readiness.path).isEqualTo("/a%20b?x=1");
        assertThat(AgentOptions.resolve("warmup-path=/api/hot?n=1", none, Map.of()).warmupPath).isEqualTo("/api/hot?n=1");
    }

    @Test
    void listsAreSeparatedBySemicolons() {
        AgentOptions o = AgentOptions.resolve("app-port=8080;8081,workers=demo-worker-;my-pool-", new Properties(), Map.of());
        assertThat(o.appPorts).containsExactly(8080, 8081);
        assertThat(o.workers).isEqualTo(List.of("demo-worker-", "my-pool-"));
        assertThat(AgentOptions.resolve("workers=none", new Properties(), Map.of()).workers).isNull();
    }

    /** A fresh user's findings: an empty list item, or none/auto beside prefixes, was taken silently. */
    @Test
    void aListWithAnEmptyItemOrAKeywordInsideIsRefused() {
        assertThatThrownBy(() -> AgentOptions.resolve("app-port=8080;;", new Properties(), Map.of()))
                .hasMessage("option 'app-port' (agent arguments): expected auto or ports separated by ';' (an empty one is a typo), was '8080;;'");
        assertThatThrownBy(() -> AgentOptions.resolve("app-port=8080;8080", new Properties(), Map.of()))
                .hasMessage("option 'app-port' (agent arguments): port 8080 is given twice, was '8080;8080'");
        assertThatThrownBy(() -> AgentOptions.resolve("app-port=auto;8080", new Properties(), Map.of()))
                .hasMessageStartingWith("option 'app-port' (agent arguments): auto stands alone");
        assertThatThrownBy(() -> AgentOptions.resolve("app-port=;8080", new Properties(), Map.of()))
                .hasMessageStartingWith("option 'app-port' (agent arguments): expected auto or ports separated by ';'");
        assertThatThrownBy(() -> AgentOptions.resolve("workers=none;http-", new Properties(), Map.of()))
                .hasMessage("option 'workers' (agent arguments): none stands alone: expected auto, none, or thread-name prefixes"
                        + " separated by ';', was 'none;http-'");
        assertThatThrownBy(() -> AgentOptions.resolve("workers=http-;", new Properties(), Map.of()))
                .hasMessageStartingWith("option 'workers' (agent arguments): expected thread-name prefixes separated by ';'");
    }

    /** A ',' inside a value splits the arguments: the error says so and how to write it (a fresh user got "option 'b' has no value"). */
    @Test
    void aCommaInsideAValueIsExplained() {
        assertThatThrownBy(() -> AgentOptions.resolve("readiness=/health?checks=a,b", new Properties(), Map.of()))
                .hasMessage("agent arguments: 'b' after option 'readiness' is not an option; options are separated by ',',"
                        + " so a ',' inside the value of 'readiness' is written %2C there, or the option is given as the"
                        + " system property vitals.agent.readiness (any text)");
        assertThatThrownBy(() -> AgentOptions.resolve("readiness=/h?a=1,b&c=2", new Properties(), Map.of()))
                .hasMessageStartingWith("unknown option 'b&c' (agent arguments)");
        assertThatThrownBy(() -> AgentOptions.resolve("app-port=8080,8081", new Properties(), Map.of()))
                .hasMessage("agent arguments: '8081' after option 'app-port' is not an option; options are separated by ','"
                        + " and the items of 'app-port' by ';' (app-port=8080;8081)");
        assertThatThrownBy(() -> AgentOptions.resolve("log=debug,,port=0", new Properties(), Map.of()))
                .hasMessage("agent arguments: an empty option between two ',' (a ',' too many?)");
        assertThatThrownBy(() -> AgentOptions.resolve("log=debug,", new Properties(), Map.of()))
                .hasMessage("agent arguments: an empty option after the last ',' (a ',' too many?)");
        assertThat(AgentOptions.resolve("readiness=/health?checks=a%2Cb", new Properties(), Map.of()).readiness.path)
                .isEqualTo("/health?checks=a%2Cb");
        assertThat(AgentOptions.resolve("", props("vitals.agent.readiness", "/health?checks=a,b"), Map.of()).readiness.path)
                .isEqualTo("/health?checks=a,b");
        assertThatThrownBy(() -> AgentOptions.resolve("port=1,host", new Properties(), Map.of()))
                .hasMessage("option 'host' (agent arguments) has no value; write host=VALUE");
    }

    @Test
    void unknownOptionsAreNamedWithTheirSource() {
        assertThatThrownBy(() -> AgentOptions.resolve("prot=1", new Properties(), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unknown option 'prot' (agent arguments); options are enabled, port,");
        assertThatThrownBy(() -> AgentOptions.resolve("", props("vitals.agent.prot", "1"), Map.of()))
                .hasMessageStartingWith("unknown option 'prot' (system property vitals.agent.prot)");
        assertThatThrownBy(() -> AgentOptions.resolve("", new Properties(), Map.of("VITALS_AGENT_PROT", "1")))
                .hasMessageStartingWith("unknown option 'prot' (environment variable VITALS_AGENT_PROT)");
    }

    @Test
    void invalidValuesAreNamedWithTheBound() {
        assertThatThrownBy(() -> AgentOptions.resolve("port=70000", new Properties(), Map.of()))
                .hasMessage("option 'port' (agent arguments): expected a whole number from 0 to 65535, was '70000'");
        assertThatThrownBy(() -> AgentOptions.resolve("readiness-timeout=10", new Properties(), Map.of()))
                .hasMessage("option 'readiness-timeout' (agent arguments): expected a duration such as 500ms, 2s or 1m, was '10'");
        assertThatThrownBy(() -> AgentOptions.resolve("stall-after=500ms", new Properties(), Map.of()))
                .hasMessage("option 'stall-after' (agent arguments): must be at least 1s, was '500ms'");
        assertThatThrownBy(() -> AgentOptions.resolve("readiness-interval=20s", new Properties(), Map.of()))
                .hasMessage("option 'readiness-max-age' (default): must be at least readiness-interval (20s), was '10s'");
        // A fresh user's finding: a 10 minute timeout left a hung call's last result stale, its age frozen.
        assertThatThrownBy(() -> AgentOptions.resolve("readiness-timeout=10m", new Properties(), Map.of()))
                .hasMessage("option 'readiness-timeout' (agent arguments): must be at most readiness-max-age (10s), was '10m'");
        assertThatThrownBy(() -> AgentOptions.resolve("details=sometimes", new Properties(), Map.of()))
                .hasMessage("option 'details' (agent arguments): expected never or always, was 'sometimes'");
        assertThatThrownBy(() -> AgentOptions.resolve("host=probe.example.com", new Properties(), Map.of()))
                .hasMessageContaining("option 'host' (agent arguments): expected an IP address literal");
        assertThatThrownBy(() -> AgentOptions.resolve("port", new Properties(), Map.of()))
                .hasMessage("option 'port' (agent arguments) has no value; write port=VALUE");
        assertThatThrownBy(() -> AgentOptions.resolve("log=verbose", new Properties(), Map.of()))
                .hasMessage("option 'log' (agent arguments): expected debug, info, warning, error or off, was 'verbose'");
        assertThatThrownBy(() -> AgentOptions.resolve("port=1,port=2", new Properties(), Map.of()))
                .hasMessage("option 'port' (agent arguments) is given twice");
    }

    @Test
    void anAddressThatOnlyLooksLikeOneIsABadValueNotAFailureAtStart() {
        // QA: host=999.1.1.1 passed validation, then the JDK looked it up as a host name and the
        // agent died after main with exit 1; readiness=http://127.0.0.1:99999/x was accepted.
        for (String host : List.of("999.1.1.1", "1.2.3.256", "::1::2", "1:2:3:4:5:6:7:8:9", "1.2.3", "1..2.3",
                "1.2.3.4.", ".1.2.3", "1.2.3.4.5", "0001.2.3.4", "1.2.3.a", "", "1.2.3.-4")) {
            assertThatThrownBy(() -> AgentOptions.resolve("host=" + host, new Properties(), Map.of()))
                    .hasMessageStartingWith("option 'host' (agent arguments): expected an IP address literal");
        }
        for (String host : List.of("0.0.0.0", "255.255.255.255", "::", "::1", "fe80::1", "::ffff:127.0.0.1")) {
            assertThat(AgentOptions.resolve("host=" + host, new Properties(), Map.of()).host).isEqualTo(host);
        }
        for (String url : List.of("http://127.0.0.1:99999/x", "http://127.0.0.1:65536/x", "http://[::1]:70000/x")) {
            assertThatThrownBy(() -> AgentOptions.resolve("readiness=" + url, new Properties(), Map.of()))
                    .hasMessageStartingWith("option 'readiness' (agent arguments): expected auto, none, a path");
        }
        assertThat(AgentOptions.resolve("readiness=http://127.0.0.1:65535/x", new Properties(), Map.of()).readiness.port)
                .isEqualTo(65535);
    }

    @Test
    void durationsTakeUnits() {
        assertThat(AgentOptions.parseDuration("250ms")).contains(Duration.ofMillis(250));
        assertThat(AgentOptions.parseDuration("3s")).contains(Duration.ofSeconds(3));
        assertThat(AgentOptions.parseDuration("2m")).contains(Duration.ofMinutes(2));
        assertThat(AgentOptions.parseDuration("PT1.5S")).contains(Duration.ofMillis(1500));
        assertThat(AgentOptions.parseDuration("soon")).isEmpty();
    }
}
