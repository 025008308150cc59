package dev.vitals.server;

import static dev.vitals.server.Fixtures.FROZEN;
import static dev.vitals.server.Fixtures.onDemand;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Mode;
import dev.vitals.Report;
import dev.vitals.StartupCompletion;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The pure part of the probe contract, table-driven with exact bodies: (registry state, method,
 * target, Authorization) → (status, content type, Allow, body). No server, no socket; real
 * registries with a frozen clock so durations read 0.0 ms.
 */
class ProbeRouterTest {
    static final String TOKEN = "s3cret-token-for-tests";
    static final String SECRET_MESSAGE = "connect to postgres://admin:hunter2@db.internal:5432/app refused";

    /** liveness: deadlock UP; readiness: db DOWN (critical), cache DEGRADED (non-critical); startup: migrations; dashboard: queue with details. */
    static HealthRegistry mixed;
    /** No checks at all, startup not complete. */
    static HealthRegistry empty;
    /** A scheduled readiness check that never ran (registry not started); liveness marked broken. */
    static HealthRegistry broken;
    /** readiness: only a non-critical DEGRADED check, so the group is DEGRADED (HTTP 200). */
    static HealthRegistry degraded;

    static final Map<String, HealthRegistry> REGISTRIES = new java.util.HashMap<>();

    @BeforeAll
    static void registries() {
        mixed = HealthRegistry.builder().clock(FROZEN).startupCompletion(StartupCompletion.MANUAL).group("dashboard")
                .register(onDemand("deadlock", Health.up().withDetail("threads", 42), Groups.LIVENESS))
                .register(onDemand("db", Health.down(new IllegalStateException(SECRET_MESSAGE)), Groups.READINESS))
                .register(Check.builder("cache", () -> Health.degraded("slow: 250 ms\nretrying")).groups(Groups.READINESS)
                        .critical(false).mode(Mode.ON_DEMAND).build())
                .register(onDemand("migrations", Health.up(), Groups.STARTUP))
                .register(onDemand("queue", Health.builder(dev.vitals.Status.UP).detail("depth", 3).detail("ratio", 0.5)
                        .detail("ok", true).detail("broker", "amqp://guest:guest@mq:5672").build(), "dashboard"))
                .build();
        mixed.availability().markStartupComplete();
        empty = HealthRegistry.builder().clock(FROZEN).startupCompletion(StartupCompletion.MANUAL).build();
        broken = HealthRegistry.builder().clock(FROZEN).startupCompletion(StartupCompletion.MANUAL)
                .register(Fixtures.scheduled("db", Health::up, Groups.READINESS))
                .build();
        broken.availability().markStartupComplete();
        broken.availability().markBroken("deadlock in pool-3");
        degraded = HealthRegistry.builder().clock(FROZEN)
                .register(Check.builder("cache", () -> Health.degraded("slow")).groups(Groups.READINESS)
                        .critical(false).mode(Mode.ON_DEMAND).build())
                .build();
        degraded.availability().markStartupComplete();
        REGISTRIES.put("mixed", mixed);
        REGISTRIES.put("empty", empty);
        REGISTRIES.put("broken", broken);
        REGISTRIES.put("degraded", degraded);
    }

    @AfterAll
    static void close() {
        REGISTRIES.values().forEach(HealthRegistry::close);
    }

    // ------------------------------------------------------------------ the table

    static final String TEXT = ProbeResponse.TEXT;
    static final String JSON = ProbeResponse.JSON;
    static final String BEARER = "Bearer " + TOKEN;

    static final String READY_FAILED_WITHHELD = "[-]db failed: reason withheld\n"
            + "[+]cache degraded: reason withheld\n"
            + "[+]availability ok\n"
            + "readyz check failed\n";
    static final String READY_FAILED_SHOWN = "[-]db failed: java.lang.IllegalStateException: " + SECRET_MESSAGE + "\n"
            + "[+]cache degraded: slow: 250 ms retrying\n"
            + "[+]availability ok\n"
            + "readyz check failed\n";
    static final String LIVENESS_JSON = "{\"status\":\"UP\",\"checks\":{"
            + "\"deadlock\":{\"status\":\"UP\",\"durationMs\":0.0},"
            + "\"availability\":{\"status\":\"UP\",\"durationMs\":0.0}}}";
    static final String READINESS_JSON = "{\"status\":\"DOWN\",\"checks\":{"
            + "\"db\":{\"status\":\"DOWN\",\"durationMs\":0.0},"
            + "\"cache\":{\"status\":\"DEGRADED\",\"durationMs\":0.0},"
            + "\"availability\":{\"status\":\"UP\",\"durationMs\":0.0}}}";
    static final String READINESS_JSON_SHOWN = "{\"status\":\"DOWN\",\"checks\":{"
            + "\"db\":{\"status\":\"DOWN\",\"durationMs\":0.0,\"message\":\"" + SECRET_MESSAGE
            + "\",\"errorType\":\"java.lang.IllegalStateException\"},"
            + "\"cache\":{\"status\":\"DEGRADED\",\"durationMs\":0.0,\"message\":\"slow: 250 ms\\nretrying\"},"
            + "\"availability\":{\"status\":\"UP\",\"durationMs\":0.0}}}";
    static final String STARTUP_JSON = "{\"status\":\"UP\",\"checks\":{"
            + "\"migrations\":{\"status\":\"UP\",\"durationMs\":0.0},"
            + "\"availability\":{\"status\":\"UP\",\"durationMs\":0.0}}}";
    static final String DASHBOARD_JSON = "{\"status\":\"UP\",\"checks\":{\"queue\":{\"status\":\"UP\",\"durationMs\":0.0}}}";
    static final String DASHBOARD_JSON_SHOWN = "{\"status\":\"UP\",\"checks\":{\"queue\":{\"status\":\"UP\",\"durationMs\":0.0,"
            + "\"details\":{\"broker\":\"amqp://guest:guest@mq:5672\",\"depth\":3,\"ok\":true,\"ratio\":0.5}}}}";

    static Stream<Row> table() {
        List<Row> rows = new ArrayList<>();
        // --- probes, plain and verbose
        rows.add(row("mixed", "never", "GET", "/livez").expect(200, TEXT, "ok"));
        rows.add(row("mixed", "never", "HEAD", "/livez").expect(200, TEXT, "ok"));
        rows.add(row("mixed", "never", "GET", "/livez?verbose").expect(200, TEXT,
                "[+]deadlock ok\n[+]availability ok\nlivez check passed\n"));
        rows.add(row("mixed", "never", "GET", "/livez?verbose=false").expect(200, TEXT,
                "[+]deadlock ok\n[+]availability ok\nlivez check passed\n"));
        rows.add(row("mixed", "never", "GET", "/livez?verbose=1&").expect(200, TEXT,
                "[+]deadlock ok\n[+]availability ok\nlivez check passed\n"));
        rows.add(row("mixed", "never", "GET", "/startupz").expect(200, TEXT, "ok"));
        rows.add(row("mixed", "never", "GET", "/startupz?verbose").expect(200, TEXT,
                "[+]migrations ok\n[+]availability ok\nstartupz check passed\n"));
        // failure: always the verbose list, whatever the query says (C5); 503 not 500 (issue 3)
        rows.add(row("mixed", "never", "GET", "/readyz").expect(503, TEXT, READY_FAILED_WITHHELD));
        rows.add(row("mixed", "never", "GET", "/readyz?verbose").expect(503, TEXT, READY_FAILED_WITHHELD));
        rows.add(row("mixed", "always", "GET", "/readyz").expect(503, TEXT, READY_FAILED_SHOWN));
        // exclusion (C6)
        rows.add(row("mixed", "never", "GET", "/readyz?exclude=db").expect(200, TEXT, "ok"));
        rows.add(row("mixed", "never", "GET", "/readyz?exclude=db&verbose").expect(200, TEXT,
                "[+]db excluded: ok\n[+]cache degraded: reason withheld\n[+]availability ok\nreadyz check passed\n"));
        rows.add(row("mixed", "never", "GET", "/readyz?verbose&exclude=zzz&exclude=db&exclude=nope").expect(200, TEXT,
                "[+]db excluded: ok\n[+]cache degraded: reason withheld\n[+]availability ok\n"
                        + "warn: some health checks cannot be excluded: no matches for \"nope\",\"zzz\"\n"
                        + "readyz check passed\n"));
        rows.add(row("mixed", "never", "GET", "/readyz?exclude=nope").expect(503, TEXT,
                "[-]db failed: reason withheld\n[+]cache degraded: reason withheld\n[+]availability ok\n"
                        + "warn: some health checks cannot be excluded: no matches for \"nope\"\n"
                        + "readyz check failed\n"));
        rows.add(row("mixed", "never", "GET", "/readyz?exclude=%22q%22%0A").expect(503, TEXT,
                "[-]db failed: reason withheld\n[+]cache degraded: reason withheld\n[+]availability ok\n"
                        + "warn: some health checks cannot be excluded: no matches for \"\\\"q\\\"\\x0a\"\n"
                        + "readyz check failed\n"));
        rows.add(row("mixed", "never", "GET", "/readyz?exclude=db&exclude=availability&exclude=cache").expect(200, TEXT, "ok"));
        // per-check paths (C7)
        rows.add(row("mixed", "never", "GET", "/readyz/db").expect(503, TEXT, "internal server error: reason withheld\n"));
        rows.add(row("mixed", "always", "GET", "/readyz/db").expect(503, TEXT,
                "internal server error: java.lang.IllegalStateException: " + SECRET_MESSAGE + "\n"));
        rows.add(row("mixed", "never", "GET", "/readyz/cache").expect(200, TEXT, "ok"));
        rows.add(row("mixed", "never", "GET", "/readyz/availability").expect(200, TEXT, "ok"));
        rows.add(row("mixed", "never", "GET", "/livez/deadlock").expect(200, TEXT, "ok"));
        rows.add(row("mixed", "never", "HEAD", "/livez/deadlock").expect(200, TEXT, "ok"));
        rows.add(row("mixed", "never", "GET", "/livez/db").expect(404, TEXT, "not found\n"));
        rows.add(row("mixed", "never", "GET", "/readyz/nope").expect(404, TEXT, "not found\n"));
        // JSON
        rows.add(row("mixed", "never", "GET", "/health/liveness").expect(200, JSON, LIVENESS_JSON));
        rows.add(row("mixed", "never", "GET", "/health/readiness").expect(503, JSON, READINESS_JSON));
        rows.add(row("mixed", "always", "GET", "/health/readiness").expect(503, JSON, READINESS_JSON_SHOWN));
        rows.add(row("mixed", "never", "GET", "/health/readiness?exclude=db").expect(200, JSON,
                "{\"status\":\"DEGRADED\",\"checks\":{\"cache\":{\"status\":\"DEGRADED\",\"durationMs\":0.0},"
                        + "\"availability\":{\"status\":\"UP\",\"durationMs\":0.0}}}"));
        rows.add(row("mixed", "never", "GET", "/health/startup").expect(200, JSON, STARTUP_JSON));
        rows.add(row("mixed", "never", "GET", "/health/dashboard").expect(200, JSON, DASHBOARD_JSON));
        rows.add(row("mixed", "always", "GET", "/health/dashboard").expect(200, JSON, DASHBOARD_JSON_SHOWN));
        rows.add(row("mixed", "never", "HEAD", "/health/dashboard").expect(200, JSON, DASHBOARD_JSON));
        rows.add(row("mixed", "never", "GET", "/health").expect(503, JSON, "{\"status\":\"DOWN\",\"groups\":{"
                + "\"liveness\":" + LIVENESS_JSON + ",\"readiness\":" + READINESS_JSON + ",\"startup\":" + STARTUP_JSON
                + ",\"dashboard\":" + DASHBOARD_JSON + "}}"));
        rows.add(row("mixed", "never", "GET", "/health?exclude=db").expect(200, JSON, "{\"status\":\"DEGRADED\",\"groups\":{"
                + "\"liveness\":" + LIVENESS_JSON + ",\"readiness\":{\"status\":\"DEGRADED\",\"checks\":{"
                + "\"cache\":{\"status\":\"DEGRADED\",\"durationMs\":0.0},\"availability\":{\"status\":\"UP\",\"durationMs\":0.0}}}"
                + ",\"startup\":" + STARTUP_JSON + ",\"dashboard\":" + DASHBOARD_JSON + "}}"));
        rows.add(row("mixed", "never", "GET", "/health/nope").expect(404, TEXT, "not found\n"));
        // details policy: when-authorized
        rows.add(row("mixed", "token", "GET", "/readyz").expect(503, TEXT, READY_FAILED_WITHHELD));
        rows.add(row("mixed", "token", "GET", "/readyz").auth("Bearer wrong-token-123").expect(503, TEXT, READY_FAILED_WITHHELD));
        rows.add(row("mixed", "token", "GET", "/readyz").auth("Bearer " + TOKEN + "x").expect(503, TEXT, READY_FAILED_WITHHELD));
        rows.add(row("mixed", "token", "GET", "/readyz").auth("Basic " + TOKEN).expect(503, TEXT, READY_FAILED_WITHHELD));
        rows.add(row("mixed", "token", "GET", "/readyz").auth(TOKEN).expect(503, TEXT, READY_FAILED_WITHHELD));
        rows.add(row("mixed", "token", "GET", "/readyz").auth(BEARER).expect(503, TEXT, READY_FAILED_SHOWN));
        rows.add(row("mixed", "token", "GET", "/readyz").auth("bearer " + TOKEN).expect(503, TEXT, READY_FAILED_SHOWN));
        rows.add(row("mixed", "token", "GET", "/health/readiness").expect(503, JSON, READINESS_JSON));
        rows.add(row("mixed", "token", "GET", "/health/readiness").auth("Bearer nope-nope-nope").expect(503, JSON, READINESS_JSON));
        rows.add(row("mixed", "token", "GET", "/health/readiness").auth(BEARER).expect(503, JSON, READINESS_JSON_SHOWN));
        // 404, 405, 400
        for (String path : new String[] {"/", "/nope", "/livez/", "/livez/deadlock/x", "/healthz", "/LIVEZ", "*", "livez",
                "/health/", "/health/readiness/db", "/livez//deadlock", "ftp://x/livez"}) {
            rows.add(row("mixed", "never", "GET", path).expect(404, TEXT, "not found\n"));
        }
        rows.add(row("mixed", "never", "POST", "/nope").expect(404, TEXT, "not found\n"));
        for (String method : new String[] {"POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "get"}) {
            rows.add(row("mixed", "never", method, "/livez").expect(405, TEXT, "method not allowed\n").allow("GET, HEAD"));
        }
        rows.add(row("mixed", "never", "POST", "/readyz/db").expect(405, TEXT, "method not allowed\n").allow("GET, HEAD"));
        rows.add(row("mixed", "never", "DELETE", "/health").expect(405, TEXT, "method not allowed\n").allow("GET, HEAD"));
        rows.add(row("mixed", "never", "GET", "/livez?vebrose").expect(400, TEXT,
                "bad request: unsupported query parameter 'vebrose'; supported: verbose, exclude\n"));
        rows.add(row("mixed", "never", "GET", "/livez?exclude").expect(400, TEXT,
                "bad request: query parameter 'exclude' needs a check name\n"));
        rows.add(row("mixed", "never", "GET", "/livez?exclude=").expect(400, TEXT,
                "bad request: query parameter 'exclude' needs a check name\n"));
        rows.add(row("mixed", "never", "GET", "/livez?exclude=%zz").expect(400, TEXT,
                "bad request: malformed percent-encoding in the query\n"));
        rows.add(row("mixed", "never", "GET", "/livez?exclude=%C3").expect(400, TEXT,
                "bad request: malformed percent-encoding in the query\n"));
        rows.add(row("mixed", "never", "GET", "/livez?exclude=db%").expect(400, TEXT,
                "bad request: malformed percent-encoding in the query\n"));
        rows.add(row("mixed", "never", "GET", "/readyz/db?verbose").expect(400, TEXT,
                "bad request: unsupported query parameter 'verbose'; per-check paths take no query parameters\n"));
        rows.add(row("mixed", "never", "GET", "/health?verbose").expect(400, TEXT,
                "bad request: unsupported query parameter 'verbose'; supported: exclude\n"));
        rows.add(row("mixed", "never", "GET", "/livez?%27%3E=1").expect(400, TEXT,
                "bad request: unsupported query parameter ''>'; supported: verbose, exclude\n"));
        // absolute-form target (RFC 9112 section 3.2.2)
        rows.add(row("mixed", "never", "GET", "http://10.0.0.7:8081/livez?verbose").expect(200, TEXT,
                "[+]deadlock ok\n[+]availability ok\nlivez check passed\n"));
        // empty registry: only the availability pseudo-check; startup not complete (scheduled path, report())
        rows.add(row("empty", "never", "GET", "/livez?verbose").expect(200, TEXT, "[+]availability ok\nlivez check passed\n"));
        rows.add(row("empty", "never", "GET", "/readyz").expect(503, TEXT, "[-]availability failed: reason withheld\nreadyz check failed\n"));
        rows.add(row("empty", "always", "GET", "/readyz").expect(503, TEXT, "[-]availability failed: starting\nreadyz check failed\n"));
        rows.add(row("empty", "never", "GET", "/startupz").expect(503, TEXT, "[-]availability failed: reason withheld\nstartupz check failed\n"));
        rows.add(row("empty", "never", "GET", "/health/startup").expect(503, JSON,
                "{\"status\":\"DOWN\",\"checks\":{\"availability\":{\"status\":\"DOWN\",\"durationMs\":0.0}}}"));
        rows.add(row("empty", "always", "GET", "/health/startup").expect(503, JSON,
                "{\"status\":\"DOWN\",\"checks\":{\"availability\":{\"status\":\"DOWN\",\"durationMs\":0.0,\"message\":\"starting\"}}}"));
        // broken liveness; a scheduled check that never ran reads UNKNOWN, which fails (503)
        rows.add(row("broken", "never", "GET", "/livez").expect(503, TEXT, "[-]availability failed: reason withheld\nlivez check failed\n"));
        rows.add(row("broken", "always", "GET", "/livez").expect(503, TEXT,
                "[-]availability failed: marked broken: deadlock in pool-3\nlivez check failed\n"));
        rows.add(row("broken", "never", "GET", "/readyz").expect(503, TEXT,
                "[-]db failed: reason withheld\n[+]availability ok\nreadyz check failed\n"));
        rows.add(row("broken", "always", "GET", "/readyz").expect(503, TEXT,
                "[-]db failed: no result yet\n[+]availability ok\nreadyz check failed\n"));
        rows.add(row("broken", "never", "GET", "/readyz/db").expect(503, TEXT, "internal server error: reason withheld\n"));
        rows.add(row("broken", "never", "GET", "/readyz?exclude=db").expect(200, TEXT, "ok"));
        rows.add(row("broken", "never", "GET", "/health/readiness").expect(503, JSON,
                "{\"status\":\"UNKNOWN\",\"checks\":{\"db\":{\"status\":\"UNKNOWN\",\"durationMs\":0.0},"
                        + "\"availability\":{\"status\":\"UP\",\"durationMs\":0.0}}}"));
        // a DEGRADED group passes with 200
        rows.add(row("degraded", "never", "GET", "/readyz").expect(200, TEXT, "ok"));
        rows.add(row("degraded", "never", "GET", "/readyz?verbose").expect(200, TEXT,
                "[+]cache degraded: reason withheld\n[+]availability ok\nreadyz check passed\n"));
        rows.add(row("degraded", "always", "GET", "/readyz?verbose").expect(200, TEXT,
                "[+]cache degraded: slow\n[+]availability ok\nreadyz check passed\n"));
        rows.add(row("degraded", "never", "GET", "/health/readiness").expect(200, JSON,
                "{\"status\":\"DEGRADED\",\"checks\":{\"cache\":{\"status\":\"DEGRADED\",\"durationMs\":0.0},"
                        + "\"availability\":{\"status\":\"UP\",\"durationMs\":0.0}}}"));
        // base path
        rows.add(row("mixed", "never", "GET", "/probes/livez").base("/probes").expect(200, TEXT, "ok"));
        rows.add(row("mixed", "never", "GET", "/probes/health/dashboard").base("/probes").expect(200, JSON, DASHBOARD_JSON));
        rows.add(row("mixed", "never", "GET", "/livez").base("/probes").expect(404, TEXT, "not found\n"));
        rows.add(row("mixed", "never", "GET", "/probesx/livez").base("/probes").expect(404, TEXT, "not found\n"));
        rows.add(row("mixed", "never", "GET", "/probes").base("/probes").expect(404, TEXT, "not found\n"));
        rows.add(row("mixed", "never", "GET", "/a/b/readyz/cache").base("/a/b").expect(200, TEXT, "ok"));
        return rows.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void answersExactly(Row row) throws Exception {
        ProbeResponder responder = responder(REGISTRIES.get(row.registry), row.base, policy(row.policy));
        ProbeResponse r = answer(responder, row.method, row.target, row.auth);
        assertThat(r.status()).as("status").isEqualTo(row.status);
        assertThat(r.contentType()).as("content type").isEqualTo(row.contentType);
        assertThat(r.bodyText()).as("body").isEqualTo(row.body);
        assertThat(r.allow()).as("Allow").isEqualTo(java.util.Optional.ofNullable(row.allow));
        String head = new String(r.head(), java.nio.charset.StandardCharsets.US_ASCII);
        assertThat(head).startsWith("HTTP/1.1 " + row.status + " ")
                .contains("\r\nContent-Length: " + r.body().length + "\r\n")
                .contains("\r\nCache-Control: no-store\r\n")
                .contains("\r\nX-Content-Type-Options: nosniff\r\n")
                .doesNotContain("Connection");
    }

    @Test
    void withPolicyNeverNoFormatLeaksTheSecret() throws Exception { // case C15
        for (String policy : new String[] {"never", "token"}) {
            ProbeResponder responder = responder(mixed, "", policy(policy));
            for (String target : new String[] {"/readyz", "/readyz?verbose", "/readyz/db", "/health", "/health/readiness",
                    "/health/dashboard", "/readyz?exclude=cache"}) {
                for (String auth : new String[] {null, "Bearer wrong-token-123", "Basic " + TOKEN}) {
                    String body = answer(responder, "GET", target, auth).bodyText();
                    assertThat(body).as(policy + " " + target + " " + auth)
                            .doesNotContain("hunter2", "db.internal", "admin", "postgres", "IllegalStateException",
                                    "guest", "amqp", "depth", "slow");
                }
            }
        }
        // The same requests do show them when allowed, so the assertions above can fail.
        String shown = answer(responder(mixed, "", policy("always")), "GET", "/health", null).bodyText();
        assertThat(shown).contains("hunter2", "db.internal", "IllegalStateException", "amqp://guest", "\"depth\":3");
    }

    @Test
    void reusesTheEncodedResponseWhileTheReportIsTheSame() throws Exception {
        ProbeRouter router = new ProbeRouter(Catalog.of(empty), "", DetailsPolicy.never());
        Report live = empty.report(Groups.LIVENESS);
        Route plain = router.route("GET", "/livez", null);
        Route verbose = router.route("GET", "/livez?verbose", null);
        ProbeResponse first = router.render(plain, live);
        assertThat(router.render(router.route("GET", "/livez", null), empty.report(Groups.LIVENESS))).isSameAs(first);
        ProbeResponse v = router.render(verbose, live);
        assertThat(v).isNotSameAs(first);
        assertThat(router.render(verbose, live)).isSameAs(v);
        // A new report instance (state changed) gets a new response.
        empty.availability().markBroken("test");
        try {
            Report changed = empty.report(Groups.LIVENESS);
            assertThat(changed).isNotSameAs(live);
            assertThat(router.render(plain, changed).status()).isEqualTo(503);
        } finally {
            empty.availability().markCorrect();
        }
        assertThat(router.render(plain, empty.report(Groups.LIVENESS)).status()).isEqualTo(200);
    }

    @Test
    void detailsPolicyValidatesItsToken() {
        assertThatThrownBy(() -> DetailsPolicy.whenAuthorized("short")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("details bearer token must have at least 8 characters, had 5");
        assertThatThrownBy(() -> DetailsPolicy.whenAuthorized("has a space")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("whitespace");
        assertThatThrownBy(() -> DetailsPolicy.whenAuthorized(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("bearerToken");
        DetailsPolicy p = DetailsPolicy.whenAuthorized(TOKEN);
        assertThat(p.toString()).isEqualTo("when-authorized").doesNotContain(TOKEN);
        assertThat(p.allows(java.util.Optional.of(BEARER))).isTrue();
        assertThat(p.allows(java.util.Optional.empty())).isFalse();
        assertThat(DetailsPolicy.never().allows(java.util.Optional.of(BEARER))).isFalse();
        assertThat(DetailsPolicy.always().allows(java.util.Optional.empty())).isTrue();
    }

    @Test
    void closedRegistryAnswers503() {
        HealthRegistry r = HealthRegistry.builder().clock(FROZEN).build();
        ProbeResponder responder = responder(r, "", DetailsPolicy.never());
        r.close();
        ProbeResponse resp = responder.answerNow(responder.router().route("GET", "/livez", null));
        assertThat(resp.status()).isEqualTo(503);
        assertThat(resp.bodyText()).isEqualTo("unavailable: health registry is closed\n");
    }

    // ------------------------------------------------------------------ helpers

    static ProbeResponder responder(HealthRegistry registry, String base, DetailsPolicy policy) {
        return new ProbeResponder(registry, new ProbeRouter(Catalog.of(registry), base, policy));
    }

    static ProbeResponse answer(ProbeResponder responder, String method, String target, String auth) throws Exception {
        Route route = responder.router().route(method, target, auth);
        return responder.needsEvaluation(route) ? responder.evaluate(route).get(10, TimeUnit.SECONDS) : responder.answerNow(route);
    }

    static DetailsPolicy policy(String name) {
        switch (name) {
            case "never": return DetailsPolicy.never();
            case "always": return DetailsPolicy.always();
            default: return DetailsPolicy.whenAuthorized(TOKEN);
        }
    }

    static Row row(String registry, String policy, String method, String target) {
        return new Row(registry, policy, method, target);
    }

    static final class Row {
        final String registry;
        final String policy;
        final String method;
        final String target;
        String auth;
        String base = "";
        int status;
        String contentType;
        String body;
        String allow;

        Row(String registry, String policy, String method, String target) {
            this.registry = registry;
            this.policy = policy;
            this.method = method;
            this.target = target;
        }

        Row auth(String value) {
            this.auth = value;
            return this;
        }

        Row base(String value) {
            this.base = value;
            return this;
        }

        Row allow(String value) {
            this.allow = value;
            return this;
        }

        Row expect(int status, String contentType, String body) {
            this.status = status;
            this.contentType = contentType;
            this.body = body;
            return this;
        }

        @Override
        public String toString() {
            return registry + "/" + policy + (base.isEmpty() ? "" : " base=" + base) + ": " + method + " " + target
                    + (auth == null ? "" : " [" + auth + "]") + " -> " + status;
        }
    }
}
