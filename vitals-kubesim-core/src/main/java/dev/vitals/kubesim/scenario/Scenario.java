package dev.vitals.kubesim.scenario;

import dev.vitals.kubesim.fault.FaultProxy;
import dev.vitals.kubesim.fault.LoadGenerator;
import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.model.Durations;
import dev.vitals.kubesim.result.Expectation;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A scenario: fault proxies, timed actions and expectations. Immutable. YAML form:
 * <pre>{@code
 * duration: 40s                       # optional; --duration wins when given
 * proxies:
 *   - db=15432:127.0.0.1:5432         # name=LISTEN_PORT:TARGET_HOST:TARGET_PORT
 * actions:
 *   - at: 5s
 *     load: {count: 200, concurrency: 20, method: GET, path: /work, port: 8080, timeout: 2s}
 *   - at: 10s
 *     fault: db blackhole             # refuse | cut | blackhole | latency 500
 *   - at: 20s
 *     heal: db
 *   - at: 25s
 *     pause: true                     # SIGSTOP
 *   - at: 30s
 *     resume: true                    # SIGCONT
 *   - at: 35s
 *     signal: HUP
 *   - at: 38s
 *     delete: true                    # pod deletion (R53); or a grace period, e.g. delete: 5s
 *   - at: 39s
 *     kubelet-restart: true           # the kubelet restarts (R15, R55)
 * expect:
 *   - restarts == 0
 *   - notReady during 11s..20s
 * }</pre>
 */
public final class Scenario {
    private static final Set<String> TOP = Set.of("duration", "proxies", "actions", "expect");
    private static final Set<String> KINDS = Set.of("load", "fault", "heal", "pause", "resume", "signal", "delete",
            "kubelet-restart");
    private final Optional<Duration> duration;
    private final List<FaultProxy.Spec> proxies;
    private final List<Step> actions;
    private final List<Expectation> expectations;

    private Scenario(Optional<Duration> duration, List<FaultProxy.Spec> proxies, List<Step> actions,
            List<Expectation> expectations) {
        this.duration = duration;
        this.proxies = List.copyOf(proxies);
        this.actions = List.copyOf(actions);
        this.expectations = List.copyOf(expectations);
    }

    /** @return an empty scenario */
    public static Scenario empty() {
        return new Scenario(Optional.empty(), List.of(), List.of(), List.of());
    }

    /**
     * @param duration the run's length, when the scenario sets one
     * @param proxies the fault proxies to start
     * @param actions the timed actions
     * @param expectations the expectations checked at the end
     * @return a scenario built in code
     */
    public static Scenario of(Optional<Duration> duration, List<FaultProxy.Spec> proxies, List<Step> actions,
            List<Expectation> expectations) {
        return new Scenario(duration, proxies, actions, expectations);
    }

    /** @return the duration written in the file, if any */
    public Optional<Duration> duration() {
        return duration;
    }

    /** @return proxies declared in the file */
    public List<FaultProxy.Spec> proxies() {
        return proxies;
    }

    /** @return the timed actions, in time order */
    public List<Step> actions() {
        return actions;
    }

    /** @return expectations */
    public List<Expectation> expectations() {
        return expectations;
    }

    /**
     * One timed action.
     *
     * @param at when, from the simulation start
     * @param action what
     */
    public record Step(Duration at, Action action) {
        /**
         * Validates the components.
         *
         * @param at when, from the simulation start
         * @param action what
         * @throws NullPointerException if a required component is null
         */
        public Step {
            Objects.requireNonNull(at, "at");
            Objects.requireNonNull(action, "action");
        }

        /** @return the action's kind, e.g. {@code fault} */
        public String kind() {
            return action.kind();
        }

        /** @return a short description for the timeline */
        public String describe() {
            return action.describe();
        }
    }

    /**
     * @param file the scenario YAML
     * @return the scenario
     * @throws InvalidInputException when unreadable or invalid, with the position of the problem
     */
    public static Scenario read(Path file) {
        try {
            return parse(dev.vitals.kubesim.yaml.InputFiles.readText(file), file.toString());
        } catch (IOException e) {
            throw new InvalidInputException("cannot read scenario " + file + ": " + InvalidInputException.reason(e), e);
        }
    }

    /**
     * @param yaml scenario text
     * @param source name for messages
     * @return the scenario
     * @throws InvalidInputException when invalid
     */
    public static Scenario parse(String yaml, String source) {
        JsonNode root = dev.vitals.kubesim.yaml.YamlDocs.readOne(yaml, source);
        if (root == null || root.isMissingNode() || root.isNull()) {
            return empty();
        }
        if (!root.isObject()) {
            throw new InvalidInputException(source + ": a scenario must be a mapping with duration/proxies/actions/expect");
        }
        for (Iterator<String> it = root.fieldNames(); it.hasNext();) {
            String f = it.next();
            if (!TOP.contains(f)) {
                throw new InvalidInputException(source + ": unknown key '" + f + "' (expected duration, proxies, actions, expect)");
            }
        }
        Optional<Duration> duration = root.has("duration") ? Optional.of(dur(root.get("duration"), source + ": duration"))
                : Optional.empty();
        if (duration.isPresent() && (duration.get().isZero() || duration.get().compareTo(Duration.ofHours(24)) > 0)) {
            throw new InvalidInputException(source + ": duration must be more than 0 and at most 24h, was "
                    + root.get("duration").asText());
        }
        List<FaultProxy.Spec> proxies = new ArrayList<>();
        for (JsonNode p : root.path("proxies")) {
            if (p.isTextual()) {
                proxies.add(FaultProxy.Spec.parse(p.asText()));
            } else if (p.isObject()) {
                String target = p.path("target").asText("");
                int c = target.lastIndexOf(':');
                if (!p.path("name").isTextual() || !p.path("listen").canConvertToInt() || c <= 0) {
                    throw new InvalidInputException(source + ": proxies: each needs name, listen (port) and target (host:port)");
                }
                proxies.add(FaultProxy.Spec.parse(p.get("name").asText() + "=" + p.get("listen").asInt() + ":" + target));
            } else {
                throw new InvalidInputException(source + ": proxies: expected 'name=LISTEN:HOST:PORT' entries");
            }
        }
        List<Step> actions = new ArrayList<>();
        int n = 0;
        for (JsonNode a : root.path("actions")) {
            n++;
            actions.add(action(a, source + ": actions[" + n + "]"));
        }
        if (root.has("actions") && !root.get("actions").isArray()) {
            throw new InvalidInputException(source + ": actions must be a list");
        }
        actions.sort((x, y) -> x.at().compareTo(y.at()));
        List<Expectation> expect = new ArrayList<>();
        if (root.has("expect") && !root.get("expect").isArray()) {
            throw new InvalidInputException(source + ": expect must be a list of lines");
        }
        for (JsonNode e : root.path("expect")) {
            try {
                expect.add(Expectation.parse(e.asText()));
            } catch (InvalidInputException ex) {
                throw new InvalidInputException(source + ": " + ex.getMessage());
            }
        }
        return new Scenario(duration, proxies, actions, expect);
    }

    private static Step action(JsonNode a, String where) {
        if (!a.isObject() || !a.has("at")) {
            throw new InvalidInputException(where + ": each action needs 'at' and one of " + KINDS);
        }
        Duration at = dur(a.get("at"), where + ".at");
        String kind = kind(a, where);
        JsonNode v = a.get(kind);
        switch (kind) {
            case "load":
                return new Step(at, load(v, where));
            case "fault":
                return new Step(at, fault(v, where));
            case "heal":
                if (!v.isTextual() || v.asText().isBlank()) {
                    throw new InvalidInputException(where + ": heal needs a proxy name, e.g. 'heal: db'");
                }
                return new Step(at, new Action.Heal(v.asText().trim()));
            case "signal":
                return new Step(at, signal(v, where));
            case "delete":
                return new Step(at, delete(v, where));
            case "kubelet-restart":
                if (!v.isBoolean() || !v.asBoolean()) {
                    throw new InvalidInputException(where + ": kubelet-restart takes true");
                }
                return new Step(at, new Action.KubeletRestart());
            case "pause":
                return new Step(at, new Action.Pause());
            default:
                return new Step(at, new Action.Resume());
        }
    }

    /** @return the entry's one action key besides {@code at} */
    private static String kind(JsonNode a, String where) {
        String kind = null;
        for (Iterator<String> it = a.fieldNames(); it.hasNext();) {
            String f = it.next();
            if (f.equals("at")) {
                continue;
            }
            if (!KINDS.contains(f)) {
                throw new InvalidInputException(where + ": unknown action '" + f + "' (expected one of " + KINDS + ")");
            }
            if (kind != null) {
                throw new InvalidInputException(where + ": one action per entry, found '" + kind + "' and '" + f + "'");
            }
            kind = f;
        }
        if (kind == null) {
            throw new InvalidInputException(where + ": no action given (expected one of " + KINDS + ")");
        }
        return kind;
    }

    /** {@code load: {count, concurrency, method, path, port, timeout}}: requests to the target's port. */
    private static Action.Load load(JsonNode v, String where) {
        if (!v.isObject()) {
            throw new InvalidInputException(where + ": load needs count, concurrency, port (and optionally method, path, timeout)");
        }
        for (Iterator<String> it = v.fieldNames(); it.hasNext();) {
            String f = it.next();
            if (!Set.of("count", "concurrency", "method", "path", "port", "timeout").contains(f)) {
                throw new InvalidInputException(where + ".load: unknown key '" + f + "'");
            }
        }
        if (!v.path("port").canConvertToInt() || !v.path("port").isIntegralNumber()) {
            throw new InvalidInputException(where + ".load: port is required (a number)");
        }
        String method = v.path("method").asText("GET").toUpperCase(Locale.ROOT);
        if (!Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS").contains(method)) {
            throw new InvalidInputException(where + ".load: method must be GET, HEAD, POST, PUT, DELETE, PATCH or"
                    + " OPTIONS, was '" + v.path("method").asText() + "'");
        }
        String path = v.path("path").asText("/");
        try {
            if (!path.startsWith("/") || java.net.URI.create("http://h" + path).getRawPath() == null) {
                throw new IllegalArgumentException(path);
            }
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException(where + ".load: path must be a URL path starting with '/', was '" + path + "'");
        }
        if (v.path("port").asInt() == LoadGenerator.APP_PORT) { // a scenario names its port
            throw new InvalidInputException(where + ": load: port must be 1-65535, was " + v.path("port").asInt());
        }
        try {
            return new Action.Load(new LoadGenerator.Spec(v.path("count").asInt(1),
                    v.path("concurrency").asInt(1), v.path("method").asText("GET").toUpperCase(Locale.ROOT),
                    v.path("path").asText("/"), v.path("port").asInt(),
                    v.has("timeout") ? dur(v.get("timeout"), where + ".load.timeout") : Duration.ofSeconds(5)));
        } catch (InvalidInputException e) {
            throw new InvalidInputException(where + ": " + e.getMessage());
        }
    }

    /** {@code fault: 'PROXY FAULT [ms]'} or {@code {proxy, type, ms}}: refuse, cut, blackhole or latency at a proxy. */
    private static Action.Fault fault(JsonNode v, String where) {
        String proxy;
        String fault;
        long ms = 0;
        if (v.isTextual()) {
            String[] parts = v.asText().trim().split("\\s+");
            if (parts.length < 2) {
                throw new InvalidInputException(where + ": fault needs 'PROXY FAULT', e.g. 'db blackhole' or 'db latency 500'");
            }
            proxy = parts[0];
            fault = parts[1].toLowerCase(Locale.ROOT);
            if (parts.length > 2) {
                ms = Durations.parse(parts[2].matches("\\d+") ? parts[2] + "ms" : parts[2]).toMillis();
            }
        } else {
            proxy = v.path("proxy").asText("");
            fault = v.path("type").asText(v.path("kind").asText("")).toLowerCase(Locale.ROOT);
            ms = v.path("ms").asLong(0);
        }
        if (!Set.of("refuse", "cut", "blackhole", "latency").contains(fault)) {
            throw new InvalidInputException(where + ": unknown fault '" + fault + "' (refuse, cut, blackhole, latency <ms>)");
        }
        if (fault.equals("latency") && ms <= 0) {
            throw new InvalidInputException(where + ": latency needs a positive delay, e.g. 'db latency 500'");
        }
        if (proxy.isEmpty()) {
            throw new InvalidInputException(where + ": fault needs a proxy name");
        }
        return new Action.Fault(proxy, fault, Duration.ofMillis(ms));
    }

    /** {@code signal: TERM}: a signal to the container's process, with or without SIG. */
    private static Action.Signal signal(JsonNode v, String where) {
        String sig = v.asText("").trim().toUpperCase(Locale.ROOT);
        if (sig.startsWith("SIG")) {
            sig = sig.substring(3);
        }
        if (!Set.of("HUP", "INT", "QUIT", "ABRT", "KILL", "USR1", "USR2", "TERM", "STOP", "CONT", "TSTP", "WINCH")
                .contains(sig)) {
            throw new InvalidInputException(where + ": signal must be one of HUP, INT, QUIT, ABRT, KILL, USR1, USR2,"
                    + " TERM, STOP, CONT, TSTP, WINCH, was '" + v.asText("") + "'");
        }
        return new Action.Signal(sig);
    }

    /** {@code delete: true} (the pod's grace period) or {@code delete: 5s}: the pod deleted. */
    private static Action.Delete delete(JsonNode v, String where) {
        if (v.isBoolean() && v.asBoolean()) {
            return new Action.Delete(Optional.empty());
        }
        if (v.isBoolean() || v.isNull()) {
            throw new InvalidInputException(where + ": delete needs true or a grace period, e.g. 'delete: 5s'");
        }
        return new Action.Delete(Optional.of(dur(v, where + ".delete")));
    }

    private static Duration dur(JsonNode n, String where) {
        try {
            return Durations.parse(n.asText());
        } catch (InvalidInputException e) {
            throw new InvalidInputException(where + ": " + e.getMessage());
        }
    }
}
