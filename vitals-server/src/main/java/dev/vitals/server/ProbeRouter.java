package dev.vitals.server;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.Report;
import dev.vitals.Status;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The probe HTTP contract (DESIGN.md section 6) as two pure steps, with no server in sight:
 *
 * <ol>
 *   <li>{@link #route(String, String, String)}: (method, request target, Authorization header)
 *       → a {@link Route}, which is either a fixed answer (404, 405, 400) or what to read and
 *       how to format it;</li>
 *   <li>{@link #render(Route, Report)} / {@link #renderAll(Route, List)}: (route, reports) →
 *       {@link ProbeResponse} (status, headers, body).</li>
 * </ol>
 *
 * <p>Which reports to pass (the cached {@code registry.report(group)} or an evaluated one) is
 * the caller's business ({@link ProbeResponder}). Output depends only on the inputs; responses
 * for the common forms (no {@code exclude}) are memoized per (group, format, details shown) and
 * reused while the registry returns the same {@link Report} instance.
 *
 * <p>Text bodies follow the Kubernetes apiserver healthz package
 * ({@code staging/src/k8s.io/apiserver/pkg/server/healthz/healthz.go}), with 503 instead of
 * 500 for failures and reasons withheld unless the {@link DetailsPolicy} allows them.
 *
 * <p>Thread-safe.
 */
final class ProbeRouter {
    static final String ALLOW = "GET, HEAD";
    /**
     * Jackson's factory, created at the first JSON answer: probes answer in text, so a server that
     * only answers probes (the Java agent's, typically) never loads Jackson's classes.
     */
    private static final class Json {
        static final JsonFactory FACTORY = JsonFactory.builder().build();
    }
    private static final String WITHHELD = "reason withheld";
    /** Characters of a check's message (and of a text answer's reason) shown in an answer (issue 40). */
    static final int MESSAGE_CHARS = 1024;
    /** Characters of a check's error type shown in an answer. */
    static final int ERROR_TYPE_CHARS = 256;
    /** Entries of a check's details shown in an answer; more are left out. */
    static final int DETAIL_ENTRIES = 16;
    /** Characters of a detail's key, and of a detail's value written as text, shown in an answer. */
    static final int DETAIL_CHARS = 256;
    /** A JSON answer's size: past it, later checks are left out and counted ({@code omittedChecks}). */
    static final int JSON_BYTES = 64 * 1024;
    /** Past this size of a JSON answer, later checks are shown without message, error type and details. */
    static final int JSON_DETAIL_BYTES = 48 * 1024;
    /** Characters of reasons in one text answer; later reasons read "reason withheld: answer size limit". */
    static final int TEXT_REASON_CHARS = 16 * 1024;

    private static final ProbeResponse NOT_FOUND = ProbeResponse.text(404, "not found\n");
    private static final ProbeResponse OK = ProbeResponse.text(200, "ok");
    private static final ProbeResponse METHOD_NOT_ALLOWED =
            new ProbeResponse(405, ProbeResponse.TEXT, "method not allowed\n".getBytes(StandardCharsets.UTF_8), ALLOW);

    private static final String[] PROBE_WORDS = {"livez", "readyz", "startupz"};
    private static final String[] PROBE_GROUPS = {Groups.LIVENESS, Groups.READINESS, Groups.STARTUP};

    /** Memo slots per group: [plain, verbose, json] × [details hidden, details shown]. */
    private static final int SLOTS = 6;

    /** The JSON report's note on a dependency check in the liveness group. */
    static final String LIVENESS_DEPENDENCY_WARNING = "a remote dependency in liveness: an outage restarts every replica"
            + " and a restart cannot cure it; move it to readiness";

    private final Catalog catalog;
    private final String basePath;
    private final DetailsPolicy policy;
    private final Map<String, AtomicReferenceArray<Memo>> memos;

    /**
     * @param catalog the registry's groups and checks
     * @param basePath "" or a prefix such as {@code /probes} (starts with '/', no trailing '/')
     * @param policy who may see details
     */
    ProbeRouter(Catalog catalog, String basePath, DetailsPolicy policy) {
        this.catalog = Objects.requireNonNull(catalog, "catalog");
        this.basePath = Objects.requireNonNull(basePath, "basePath");
        this.policy = Objects.requireNonNull(policy, "policy");
        Map<String, AtomicReferenceArray<Memo>> m = new java.util.HashMap<>();
        for (String g : catalog.groups()) {
            m.put(g, new AtomicReferenceArray<>(SLOTS));
        }
        this.memos = Collections.unmodifiableMap(m);
    }

    Catalog catalog() {
        return catalog;
    }

    // ------------------------------------------------------------------ routing

    /**
     * Routes one request. Order of decisions: path (404), then method (405 with {@code Allow}),
     * then query (400), then the details policy.
     *
     * @param method the request method, as sent (case-sensitive, as HTTP methods are)
     * @param target the request target: origin form ({@code /livez?verbose}) or absolute form
     *     ({@code http://host/livez})
     * @param authorization the {@code Authorization} header, or null when absent
     * @return the route; never null
     */
    Route route(String method, String target, String authorization) {
        String path;
        String query;
        int q = target.indexOf('?');
        if (q >= 0) {
            path = target.substring(0, q);
            query = target.substring(q + 1);
        } else {
            path = target;
            query = null;
        }
        path = stripAbsoluteForm(path);
        if (path == null || !path.startsWith(basePath)) {
            return Route.fixed(NOT_FOUND);
        }
        path = path.substring(basePath.length());

        // Path: /<segment>[/<second>]
        if (path.length() < 2 || path.charAt(0) != '/') {
            return Route.fixed(NOT_FOUND);
        }
        int slash = path.indexOf('/', 1);
        String first = slash < 0 ? path.substring(1) : path.substring(1, slash);
        String second = slash < 0 ? null : path.substring(slash + 1);
        if (second != null && (second.isEmpty() || second.indexOf('/') >= 0)) {
            return Route.fixed(NOT_FOUND);
        }

        Route.Kind kind;
        String word = null;
        String group;
        String check = null;
        int probe = probeIndex(first);
        if (probe >= 0) {
            word = PROBE_WORDS[probe];
            group = PROBE_GROUPS[probe];
            if (!catalog.hasGroup(group)) {
                return Route.fixed(NOT_FOUND);
            }
            if (second != null) {
                if (!catalog.checks(group).contains(second)) {
                    return Route.fixed(NOT_FOUND);
                }
                kind = Route.Kind.CHECK;
                check = second;
            } else {
                kind = Route.Kind.PROBE;
            }
        } else if ("health".equals(first)) {
            if (second == null) {
                kind = Route.Kind.HEALTH_ALL;
                group = null;
            } else if (catalog.hasGroup(second)) {
                kind = Route.Kind.HEALTH_GROUP;
                group = second;
            } else {
                return Route.fixed(NOT_FOUND);
            }
        } else {
            return Route.fixed(NOT_FOUND);
        }

        if (!"GET".equals(method) && !"HEAD".equals(method)) {
            return Route.fixed(METHOD_NOT_ALLOWED);
        }

        boolean verbose = false;
        Set<String> excluded = Set.of();
        if (query != null && !query.isEmpty()) {
            for (String param : query.split("&", -1)) {
                if (param.isEmpty()) {
                    continue;
                }
                int eq = param.indexOf('=');
                String name = decode(eq < 0 ? param : param.substring(0, eq));
                String value = eq < 0 ? null : decode(param.substring(eq + 1));
                if (name == null || (eq >= 0 && value == null)) {
                    return Route.fixed(badRequest("malformed percent-encoding in the query"));
                }
                if ("verbose".equals(name) && kind == Route.Kind.PROBE) {
                    verbose = true; // any value, as the apiserver accepts
                } else if ("exclude".equals(name) && kind != Route.Kind.CHECK) {
                    if (value == null || value.isEmpty()) {
                        return Route.fixed(badRequest("query parameter 'exclude' needs a check name"));
                    }
                    if (excluded.isEmpty()) {
                        excluded = new TreeSet<>();
                    }
                    excluded.add(value);
                } else {
                    return Route.fixed(badRequest("unsupported query parameter '" + quoteSafe(name) + "'; "
                            + supported(kind)));
                }
            }
        }
        boolean details = policy.allows(authorization);
        List<String> groups = group == null ? catalog.groups() : List.of(group);
        return Route.read(kind, word, groups, check, verbose,
                excluded.isEmpty() ? Set.of() : Collections.unmodifiableSet(excluded), details);
    }

    private static String supported(Route.Kind kind) {
        switch (kind) {
            case PROBE: return "supported: verbose, exclude";
            case CHECK: return "per-check paths take no query parameters";
            default: return "supported: exclude";
        }
    }

    private static int probeIndex(String segment) {
        for (int i = 0; i < PROBE_WORDS.length; i++) {
            if (PROBE_WORDS[i].equals(segment)) {
                return i;
            }
        }
        return -1;
    }

    /** @return the path of an absolute-form target, the path itself for origin form, null for anything else */
    private static String stripAbsoluteForm(String path) {
        if (path.startsWith("/")) {
            return path;
        }
        int scheme = path.startsWith("http://") ? 7 : path.startsWith("https://") ? 8 : -1;
        if (scheme < 0) {
            return null;
        }
        int slash = path.indexOf('/', scheme);
        return slash < 0 ? "/" : path.substring(slash);
    }

    /** Decodes application/x-www-form-urlencoded text strictly; null when malformed. */
    static String decode(String s) {
        if (s.indexOf('%') < 0 && s.indexOf('+') < 0) {
            return s;
        }
        ByteBuffer bytes = ByteBuffer.allocate(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '+') {
                bytes.put((byte) ' ');
            } else if (c == '%') {
                if (i + 2 >= s.length()) {
                    return null;
                }
                int hi = Character.digit(s.charAt(i + 1), 16);
                int lo = Character.digit(s.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    return null;
                }
                bytes.put((byte) (hi << 4 | lo));
                i += 2;
            } else if (c > 0x7f) {
                return null;
            } else {
                bytes.put((byte) c);
            }
        }
        bytes.flip();
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(bytes).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    static ProbeResponse badRequest(String why) {
        return ProbeResponse.text(400, "bad request: " + why + "\n");
    }

    // ------------------------------------------------------------------ formatting

    /**
     * Formats a single-group route.
     *
     * @param route a {@link Route.Kind#PROBE}, {@link Route.Kind#CHECK} or
     *     {@link Route.Kind#HEALTH_GROUP} route
     * @param report the group's report, with or without the route's excluded checks
     * @return the response
     */
    ProbeResponse render(Route route, Report report) {
        int slot = slot(route);
        AtomicReferenceArray<Memo> memo = slot >= 0 ? memos.get(report.group()) : null;
        if (memo != null) {
            Memo m = memo.get(slot);
            if (m != null && m.report == report) {
                return m.response;
            }
        }
        ProbeResponse response;
        switch (route.kind()) {
            case PROBE:
                response = probeText(route, report);
                break;
            case CHECK:
                response = checkText(route, report);
                break;
            case HEALTH_GROUP:
                Report shown = report.without(route.excluded());
                response = json(status(shown.status()), (out, size) -> {
                    writeReport(out, shown, route.detailsShown(), catalog, size);
                });
                break;
            default:
                throw new IllegalArgumentException("render needs a single-group route, was " + route);
        }
        if (memo != null) {
            memo.set(slot, new Memo(report, response));
        }
        return response;
    }

    /**
     * Formats {@code /health}: every group's report, and the worst status of all of them.
     *
     * @param route a {@link Route.Kind#HEALTH_ALL} route
     * @param reports one report per group of {@link Route#groups()}, in that order
     * @return the response
     */
    ProbeResponse renderAll(Route route, List<Report> reports) {
        Status worst = Status.UP;
        Report[] shown = new Report[reports.size()];
        for (int i = 0; i < shown.length; i++) {
            shown[i] = reports.get(i).without(route.excluded());
            worst = worst.worst(shown[i].status());
        }
        Status overall = worst;
        return json(status(overall), (out, size) -> {
            out.writeStartObject();
            out.writeStringField("status", overall.name());
            out.writeObjectFieldStart("groups");
            for (Report r : shown) {
                out.writeFieldName(r.group());
                writeReport(out, r, route.detailsShown(), catalog, size);
            }
            out.writeEndObject();
            if (size.truncated) {
                out.writeBooleanField("truncated", true);
            }
            out.writeEndObject();
        });
    }

    /** A 503 for when the registry cannot be read (closed). */
    static ProbeResponse unavailable(String why) {
        return ProbeResponse.text(503, "unavailable: " + why + "\n");
    }

    private static int slot(Route route) {
        if (!route.excluded().isEmpty()) {
            return -1;
        }
        int details = route.detailsShown() ? 1 : 0;
        switch (route.kind()) {
            case PROBE:
                return (route.verbose() ? 2 : 0) + details;
            case HEALTH_GROUP:
                return 4 + details;
            default:
                return -1;
        }
    }

    private static int status(Status s) {
        return s.isHealthy() ? 200 : 503;
    }

    private ProbeResponse probeText(Route route, Report report) {
        Report shown = report.without(route.excluded());
        boolean healthy = shown.status().isHealthy();
        if (healthy && !route.verbose()) {
            return OK;
        }
        StringBuilder sb = new StringBuilder(64);
        int[] reasonChars = {0};
        List<String> names = catalog.checks(report.group());
        for (String name : names) {
            if (route.excluded().contains(name)) {
                sb.append("[+]").append(name).append(" excluded: ok\n");
                continue;
            }
            Health h = shown.checks().get(name);
            if (h == null) {
                continue;
            }
            switch (h.status()) {
                case UP:
                    sb.append("[+]").append(name).append(" ok\n");
                    break;
                case DEGRADED:
                    sb.append("[+]").append(name).append(" degraded: ").append(reason(h, route.detailsShown(), reasonChars)).append('\n');
                    break;
                default:
                    sb.append("[-]").append(name).append(" failed: ").append(reason(h, route.detailsShown(), reasonChars)).append('\n');
                    break;
            }
        }
        if (!route.excluded().isEmpty()) {
            StringBuilder unmatched = new StringBuilder();
            for (String name : route.excluded()) {
                if (!names.contains(name)) {
                    unmatched.append(unmatched.length() == 0 ? "" : ",").append('"').append(quoteSafe(name)).append('"');
                }
            }
            if (unmatched.length() > 0) {
                sb.append("warn: some health checks cannot be excluded: no matches for ").append(unmatched).append('\n');
            }
        }
        sb.append(route.word()).append(healthy ? " check passed\n" : " check failed\n");
        return ProbeResponse.text(healthy ? 200 : 503, sb.toString());
    }

    private static ProbeResponse checkText(Route route, Report report) {
        Health h = report.checks().get(route.check());
        if (h == null) {
            return NOT_FOUND;
        }
        if (h.status().isHealthy()) {
            return OK;
        }
        return ProbeResponse.text(503, "internal server error: " + reason(h, route.detailsShown()) + "\n");
    }

    /** The one-line reason of a failed or degraded health, or {@value #WITHHELD}; at most {@value #MESSAGE_CHARS} chars. */
    static String reason(Health h, boolean shown) {
        return reason(h, shown, new int[1]);
    }

    /**
     * @param used characters of reasons this answer holds so far; updated
     * @return the reason, cut to {@value #MESSAGE_CHARS} characters, or withheld once the answer
     *         holds {@value #TEXT_REASON_CHARS} characters of reasons
     */
    private static String reason(Health h, boolean shown, int[] used) {
        if (!shown) {
            return WITHHELD;
        }
        if (used[0] >= TEXT_REASON_CHARS) {
            return WITHHELD + ": answer size limit";
        }
        String r = oneLine(cut(rawReason(h), MESSAGE_CHARS));
        used[0] += r.length();
        return r;
    }

    private static String rawReason(Health h) {
        String message = h.message().orElse(null);
        String type = h.errorType().orElse(null);
        String r;
        if (message != null) {
            r = type != null ? type + ": " + message : message;
        } else {
            r = type != null ? type : h.status().name().toLowerCase(Locale.ROOT);
        }
        return r;
    }

    /**
     * @return {@code s}, or its first {@code max} characters (never half a surrogate pair)
     *         followed by "… (truncated from N chars)" (issue 40)
     */
    static String cut(String s, int max) {
        if (s.length() <= max) {
            return s;
        }
        int end = Character.isHighSurrogate(s.charAt(max - 1)) ? max - 1 : max;
        return s.substring(0, end) + "… (truncated from " + s.length() + " chars)";
    }

    private static String oneLine(String s) {
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < ' ' || c == 0x7f) {
                if (sb == null) {
                    sb = new StringBuilder(s.length()).append(s, 0, i);
                }
                sb.append(' ');
            } else if (sb != null) {
                sb.append(c);
            }
        }
        return sb == null ? s : sb.toString();
    }

    /** Escapes a client-supplied name for echoing in a body: quotes, backslashes and controls. */
    static String quoteSafe(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length() && i < 200; i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < ' ' || c == 0x7f) {
                sb.append(String.format(Locale.ROOT, "\\x%02x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    // ------------------------------------------------------------------ JSON

    private interface JsonBody {
        void write(JsonGenerator out, Size size) throws IOException;
    }

    /** How much of a JSON answer is written, and what was left out of it (issue 40). */
    private static final class Size {
        private final ByteArrayOutputStream bytes;
        private final JsonGenerator out;
        boolean truncated;

        Size(ByteArrayOutputStream bytes, JsonGenerator out) {
            this.bytes = bytes;
            this.out = out;
        }

        int written() {
            return bytes.size() + out.getOutputBuffered();
        }
    }

    private static ProbeResponse json(int status, JsonBody body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (JsonGenerator out = Json.FACTORY.createGenerator(bytes, JsonEncoding.UTF8)) {
            body.write(out, new Size(bytes, out));
        } catch (IOException e) {
            throw new UncheckedIOException("writing JSON to memory failed", e);
        }
        return new ProbeResponse(status, ProbeResponse.JSON, bytes.toByteArray(), null);
    }

    /**
     * {@code {"status":"UP","checks":{"db":{"status":"UP","durationMs":3.1,"message":"…",
     * "errorType":"…","details":{…}}}}}; message, errorType and details only when shown and present.
     * A check tagged as a dependency carries {@code "dependency":true}, and in the liveness
     * group also a {@code "warning"} (DESIGN.md P2); neither reveals more than the check's name.
     */
    private static void writeReport(JsonGenerator out, Report report, boolean details, Catalog catalog, Size size)
            throws IOException {
        out.writeStartObject();
        out.writeStringField("status", report.status().name());
        out.writeObjectFieldStart("checks");
        int omitted = 0;
        for (Map.Entry<String, Health> e : report.checks().entrySet()) {
            if (omitted > 0 || size.written() + e.getKey().length() + 64 > JSON_BYTES) {
                omitted++; // the answer's size: this check and the rest are counted, not shown
                continue;
            }
            Health h = e.getValue();
            out.writeObjectFieldStart(e.getKey());
            out.writeStringField("status", h.status().name());
            out.writeNumberField("durationMs", Math.round(h.duration().toNanos() / 100_000.0) / 10.0);
            if (catalog.isDependency(e.getKey())) {
                out.writeBooleanField("dependency", true);
                if (Groups.LIVENESS.equals(report.group())) {
                    out.writeStringField("warning", LIVENESS_DEPENDENCY_WARNING);
                }
            }
            if (details && (h.message().isPresent() || h.errorType().isPresent() || !h.details().isEmpty())) {
                boolean cut = false;
                if (size.written() >= JSON_DETAIL_BYTES) {
                    cut = true; // the answer's share for details is spent: status only
                } else {
                    if (h.message().isPresent()) {
                        String m = cut(h.message().get(), MESSAGE_CHARS);
                        cut |= m.length() != h.message().get().length();
                        out.writeStringField("message", m);
                    }
                    if (h.errorType().isPresent()) {
                        String t = cut(h.errorType().get(), ERROR_TYPE_CHARS);
                        cut |= t.length() != h.errorType().get().length();
                        out.writeStringField("errorType", t);
                    }
                    if (!h.details().isEmpty()) {
                        out.writeObjectFieldStart("details");
                        int n = 0;
                        for (Map.Entry<String, Object> d : h.details().entrySet()) {
                            if (n++ == DETAIL_ENTRIES) {
                                cut = true;
                                break;
                            }
                            String key = cut(d.getKey(), DETAIL_CHARS);
                            cut |= key.length() != d.getKey().length();
                            out.writeFieldName(key);
                            cut |= writeValue(out, d.getValue());
                        }
                        out.writeEndObject();
                    }
                }
                if (cut) {
                    out.writeBooleanField("truncated", true);
                    size.truncated = true;
                }
            }
            out.writeEndObject();
        }
        out.writeEndObject();
        if (omitted > 0) {
            out.writeNumberField("omittedChecks", omitted);
            out.writeBooleanField("truncated", true);
            size.truncated = true;
        }
        out.writeEndObject();
    }

    /** @return whether the value was cut ({@value #DETAIL_CHARS} characters of text at most) */
    private static boolean writeValue(JsonGenerator out, Object v) throws IOException {
        if (v instanceof Boolean) {
            out.writeBoolean((Boolean) v);
        } else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            out.writeNumber(((Number) v).longValue());
        } else if (v instanceof Double || v instanceof Float) {
            out.writeNumber(((Number) v).doubleValue());
        } else if (v instanceof BigDecimal) {
            out.writeNumber((BigDecimal) v);
        } else if (v instanceof BigInteger) {
            out.writeNumber((BigInteger) v);
        } else {
            String text = String.valueOf(v);
            String shown = cut(text, DETAIL_CHARS);
            out.writeString(shown);
            return shown.length() != text.length();
        }
        return false;
    }

    private static final class Memo {
        final Report report;
        final ProbeResponse response;

        Memo(Report report, ProbeResponse response) {
            this.report = report;
            this.response = response;
        }
    }
}
