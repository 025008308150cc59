package dev.vitals.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 40: answers have a stated size. With details shown, a check's 5 MB message made 5 MB
 * answers, on {@code /readyz/<check>} too, and 500 long-named checks made a 120 KB
 * {@code /health}. Now a message, an error type and details are cut per check, a JSON answer stops
 * at 64 KiB (later checks counted in {@code omittedChecks}), and every cut says {@code truncated}.
 */
class AnswerSizeTest {
    private static final String FIVE_MB = "m".repeat(5 * 1024 * 1024);
    private static final String MESSAGE = FIVE_MB + "\r\nsecond line";
    private static final String CUT = "… (truncated from " + MESSAGE.length() + " chars)";
    private HealthRegistry registry;
    private ProbeServer server;

    @AfterEach
    void tearDown() {
        if (server != null) {
            server.stop(Duration.ofSeconds(2));
        }
        if (registry != null) {
            registry.close();
        }
    }

    private void start(HealthRegistry.Builder b) {
        registry = b.build();
        registry.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> registry.report(Groups.READINESS).checks().values().stream()
                .noneMatch(h -> h.status() == Status.UNKNOWN));
        server = ProbeServer.builder(registry).bindAddress(InetAddress.getLoopbackAddress()).port(0)
                .detailsPolicy(DetailsPolicy.always()).build().start();
    }

    @Test
    void aFiveMegabyteMessageIsCutInEveryAnswerAndSaysTruncated() throws Exception {
        Health.Builder huge = Health.builder(Status.DOWN).message(MESSAGE).detail("big", FIVE_MB);
        for (int i = 0; i < 100; i++) {
            huge.detail("k" + i, i);
        }
        Health health = huge.build();
        start(HealthRegistry.builder().register(Fixtures.scheduled("db", () -> health, Groups.READINESS)));

        RawHttp.Response check = RawHttp.get(server.port(), "/readyz/db");
        assertThat(check.status).isEqualTo(503);
        assertThat(check.body.length()).isLessThan(ProbeRouter.MESSAGE_CHARS + 100);
        assertThat(check.body).startsWith("internal server error: mmm").contains(CUT);

        RawHttp.Response verbose = RawHttp.get(server.port(), "/readyz?verbose");
        assertThat(verbose.status).isEqualTo(503);
        assertThat(verbose.body.length()).isLessThan(ProbeRouter.MESSAGE_CHARS + 200);
        assertThat(verbose.body).contains("[-]db failed: mmm").contains("truncated from").endsWith("readyz check failed\n");

        for (String path : new String[] {"/health/readiness", "/health"}) {
            RawHttp.Response json = RawHttp.get(server.port(), path);
            assertThat(json.status).isEqualTo(503);
            assertThat(json.body.getBytes(StandardCharsets.UTF_8).length).as(path).isLessThan(16 * 1024);
            assertThat(json.body).as(path).contains("\"db\":{\"status\":\"DOWN\"")
                    .contains(CUT).contains("\"truncated\":true");
            assertThat(count(json.body, "\"k")).as("details shown").isEqualTo(ProbeRouter.DETAIL_ENTRIES - 1); // and "big"
            if (path.equals("/health")) {
                assertThat(json.body).as("the answer's own marker").endsWith("},\"truncated\":true}");
            }
        }
    }

    @Test
    void fiveHundredLongNamedChecksMakeAJsonAnswerOfAtMost64KiBThatCountsWhatItLeftOut() throws Exception {
        HealthRegistry.Builder b = HealthRegistry.builder();
        for (int i = 0; i < 500; i++) {
            Health h = i == 499 ? Health.down("the last one") : Health.up();
            b.register(Fixtures.scheduled(String.format("check-%03d-", i) + "x".repeat(200), () -> h, Groups.READINESS));
        }
        start(b);
        for (String path : new String[] {"/health/readiness", "/health"}) {
            RawHttp.Response json = RawHttp.get(server.port(), path);
            int bytes = json.body.getBytes(StandardCharsets.UTF_8).length;
            assertThat(bytes).as(path).isLessThanOrEqualTo(ProbeRouter.JSON_BYTES + 100);
            assertThat(json.status).isEqualTo(503);
            assertThat(json.body).as("the last, omitted, check still counts").contains("{\"status\":\"DOWN\",\"checks\":{");
            Matcher omitted = Pattern.compile("\"omittedChecks\":(\\d+),\"truncated\":true").matcher(json.body);
            assertThat(omitted.find()).as(path).isTrue();
            if (path.equals("/health/readiness")) {
                int shown = count(json.body, "\"check-") + (json.body.contains("\"availability\"") ? 1 : 0);
                assertThat(shown + Integer.parseInt(omitted.group(1))).as("500 checks and availability").isEqualTo(501);
            }
            assertThat(Integer.parseInt(omitted.group(1))).isPositive();
            assertThat(json.body).doesNotContain("the last one");
        }
        // The probes list every check: their answer is bounded by the number of checks, not by what they say.
        assertThat(RawHttp.get(server.port(), "/readyz").body).contains("[-]check-499-");
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }
}
