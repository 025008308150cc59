package dev.vitals.agent.impl;

import java.net.URI;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The agent's options, resolved from agent arguments ({@code key=value,...}), then system
 * properties ({@code vitals.agent.key}), then environment variables ({@code VITALS_AGENT_KEY},
 * {@code -} written {@code _}); the first source that sets a key wins. Immutable.
 *
 * <p>{@link #resolve} rejects an unknown key in any of the three sources and any invalid value
 * with an {@link IllegalArgumentException} whose message is one line naming the option and its
 * source, so the agent can stop the JVM before the application starts (never a half-working
 * agent).
 */
final class AgentOptions {
    /** Every option with its default and a one-line meaning (docs/agent.md has the long form). */
    static final Map<String, String[]> KNOWN = new LinkedHashMap<>();

    static {
        known("enabled", "true", "false turns the agent off");
        known("port", "9090", "probe port (0 picks a free one)");
        known("host", "0.0.0.0", "probe bind address (an IP literal)");
        known("app-port", "auto", "the application's port(s), ';'-separated, or auto (listening ports of this JVM)");
        known("readiness", "auto", "auto, none, a path on the app port, or an http://127.0.0.1:... URL");
        known("readiness-interval", "2s", "time between two readiness calls");
        known("readiness-timeout", "2s", "bound of one readiness call");
        known("readiness-max-age", "10s", "readiness result older than this reads UNKNOWN (stale)");
        known("readiness-backoff-max", "16s", "while the application answers DOWN unchanged, calls back off from readiness-interval, doubling, to this");
        known("drain-delay", "5s", "on SIGTERM, readiness fails this long before the application's shutdown");
        known("stall-after", "60s", "a worker pool with work and no progress for this long fails liveness");
        known("workers", "auto", "thread-name prefixes of extra worker pools, ';'-separated; none turns pools off");
        known("deadlock", "true", "deadlock detection in liveness");
        known("deadlock-interval", "5s", "time between two deadlock scans");
        known("pause", "true", "JVM pauses: lag of a heartbeat on the agent's scheduler (no thread of its own)");
        known("listener-grace", "10s", "an application port refusing connections this long fails liveness");
        known("details", "never", "never or always: reasons in probe bodies");
        known("warmup-path", "none", "a path on the app port the agent requests to warm the application; readiness waits for it");
        known("warmup-requests", "100", "warm once this many warm-up requests answered within warmup-latency");
        known("warmup-latency", "100ms", "the application's normal latency for the warm-up path");
        known("warmup-max-wait", "60s", "readiness waits for warm-up at most this long (then DEGRADED, ready)");
        known("log", "info", "the agent's own lines on standard error: debug, info, warning, error or off");
    }

    private static void known(String key, String defaultValue, String meaning) {
        KNOWN.put(key, new String[] {defaultValue, meaning});
    }

    final boolean enabled;
    final int port;
    final String host;
    final List<Integer> appPorts; // empty: auto
    final Readiness readiness;
    final Duration readinessInterval;
    /** Longest time between two calls while the application answers the same DOWN (at least readinessInterval). */
    final Duration readinessBackoffMax;
    final Duration readinessTimeout;
    final Duration readinessMaxAge;
    final Duration drainDelay;
    final Duration stallAfter;
    final List<String> workers; // null: none
    final boolean deadlock;
    final Duration deadlockInterval;
    final boolean pause;
    final Duration listenerGrace;
    final boolean detailsAlways;
    final String warmupPath; // null: no warm-up
    final int warmupRequests;
    final Duration warmupLatency;
    final Duration warmupMaxWait;
    /** The least level of the agent's own lines written to standard error; {@code OFF}: none. */
    final System.Logger.Level log;

    /** Where readiness comes from. */
    static final class Readiness {
        enum Kind { AUTO, NONE, PATH, URL }

        final Kind kind;
        final String path; // PATH and URL: the path with query
        final int port;    // URL: the port; PATH: -1 (the application's port)

        Readiness(Kind kind, String path, int port) {
            this.kind = kind;
            this.path = path;
            this.port = port;
        }
    }

    private AgentOptions(Map<String, Source> v) {
        enabled = bool(v, "enabled");
        port = intIn(v, "port", 0, 65535);
        host = ip(v, "host");
        appPorts = ports(v, "app-port");
        readiness = readiness(v, "readiness");
        readinessInterval = duration(v, "readiness-interval", Duration.ofMillis(100));
        readinessTimeout = duration(v, "readiness-timeout", Duration.ofMillis(50));
        readinessMaxAge = duration(v, "readiness-max-age", Duration.ofMillis(100));
        if (readinessMaxAge.compareTo(readinessInterval) < 0) {
            throw bad(v.get("readiness-max-age"), "must be at least readiness-interval (" + format(readinessInterval) + ")");
        }
        if (readinessTimeout.compareTo(readinessMaxAge) > 0) {
            // A hung call would leave the last result stale before the timeout could report it.
            throw bad(v.get("readiness-timeout"), "must be at most readiness-max-age (" + format(readinessMaxAge) + ")");
        }
        readinessBackoffMax = duration(v, "readiness-backoff-max", Duration.ofMillis(100));
        if (readinessBackoffMax.compareTo(readinessInterval) < 0) {
            throw bad(v.get("readiness-backoff-max"), "must be at least readiness-interval (" + format(readinessInterval) + ")");
        }
        drainDelay = duration(v, "drain-delay", Duration.ZERO);
        stallAfter = duration(v, "stall-after", Duration.ofSeconds(1));
        workers = workers(v, "workers");
        deadlock = bool(v, "deadlock");
        deadlockInterval = duration(v, "deadlock-interval", Duration.ofMillis(100));
        pause = bool(v, "pause");
        listenerGrace = duration(v, "listener-grace", Duration.ZERO);
        String details = v.get("details").value.trim().toLowerCase(Locale.ROOT);
        if (!details.equals("never") && !details.equals("always")) {
            throw bad(v.get("details"), "expected never or always");
        }
        detailsAlways = details.equals("always");
        String wp = v.get("warmup-path").value.trim();
        if (!wp.equals("none") && !wp.startsWith("/")) {
            throw bad(v.get("warmup-path"), "expected none or a path starting with /");
        }
        warmupPath = wp.equals("none") ? null : requestTarget(v.get("warmup-path"), wp);
        warmupRequests = intIn(v, "warmup-requests", 1, 1_000_000);
        warmupLatency = duration(v, "warmup-latency", Duration.ofMillis(1));
        warmupMaxWait = duration(v, "warmup-max-wait", Duration.ofMillis(1));
        if (warmupMaxWait.compareTo(Duration.ofHours(1)) > 0) {
            throw bad(v.get("warmup-max-wait"), "must be at most 60m");
        }
        log = level(v, "log");
    }

    private static System.Logger.Level level(Map<String, Source> v, String key) {
        switch (v.get(key).value.trim().toLowerCase(Locale.ROOT)) {
            case "debug":
                return System.Logger.Level.DEBUG;
            case "info":
                return System.Logger.Level.INFO;
            case "warning":
                return System.Logger.Level.WARNING;
            case "error":
                return System.Logger.Level.ERROR;
            case "off":
                return System.Logger.Level.OFF;
            default:
                throw bad(v.get(key), "expected debug, info, warning, error or off");
        }
    }

    /** A value and where it came from, for the error line. */
    private static final class Source {
        final String key;
        final String value;
        final String from;

        Source(String key, String value, String from) {
            this.key = key;
            this.value = value;
            this.from = from;
        }
    }

    /**
     * @param args agent arguments, {@code key=value} pairs separated by {@code ,}; empty for none
     * @param props system properties (keys {@code vitals.agent.*} are read)
     * @param env environment (keys {@code VITALS_AGENT_*} are read)
     * @return the options
     * @throws IllegalArgumentException one line naming the first unknown or invalid option
     */
    static AgentOptions resolve(String args, Properties props, Map<String, String> env) {
        Map<String, Source> values = new LinkedHashMap<>();
        if (args != null && !args.isBlank()) {
            String[] pairs = args.split(",", -1);
            for (int n = 0; n < pairs.length; n++) {
                String pair = pairs[n];
                if (pair.isBlank()) {
                    throw new IllegalArgumentException("agent arguments: an empty option " + (n == 0 ? "before the first ','"
                            : n == pairs.length - 1 ? "after the last ','" : "between two ','") + " (a ',' too many?)");
                }
                int eq = pair.indexOf('=');
                String key = (eq < 0 ? pair : pair.substring(0, eq)).trim();
                if (eq < 0 && !values.isEmpty() && !KNOWN.containsKey(key)) {
                    throw new IllegalArgumentException("agent arguments: '" + pair.trim() + "' after option '" + last(values)
                            + "' is not an option; " + commaHint(last(values)));
                }
                if (eq < 0) {
                    throw new IllegalArgumentException("option '" + key + "' (agent arguments) has no value; write " + key + "=VALUE");
                }
                requireKnown(key, "agent arguments");
                if (values.containsKey(key)) {
                    throw new IllegalArgumentException("option '" + key + "' (agent arguments) is given twice");
                }
                values.put(key, new Source(key, pair.substring(eq + 1).trim(), "agent arguments"));
            }
        }
        for (String name : props.stringPropertyNames()) {
            if (name.startsWith("vitals.agent.")) {
                String key = name.substring("vitals.agent.".length());
                requireKnown(key, "system property " + name);
                values.putIfAbsent(key, new Source(key, props.getProperty(name).trim(), "system property " + name));
            }
        }
        for (Map.Entry<String, String> e : env.entrySet()) {
            if (e.getKey().startsWith("VITALS_AGENT_")) {
                String key = e.getKey().substring("VITALS_AGENT_".length()).toLowerCase(Locale.ROOT).replace('_', '-');
                requireKnown(key, "environment variable " + e.getKey());
                values.putIfAbsent(key, new Source(key, e.getValue().trim(), "environment variable " + e.getKey()));
            }
        }
        for (Map.Entry<String, String[]> k : KNOWN.entrySet()) {
            values.putIfAbsent(k.getKey(), new Source(k.getKey(), k.getValue()[0], "default"));
        }
        return new AgentOptions(values);
    }

    /** @return how to write a value with a ',' in it, for the option that came before the stray text */
    private static String commaHint(String option) {
        if (option.equals("app-port") || option.equals("workers")) {
            return "options are separated by ',' and the items of '" + option + "' by ';' (" + option + "="
                    + (option.equals("app-port") ? "8080;8081" : "my-pool-;other-") + ")";
        }
        return "options are separated by ',', so a ',' inside the value of '" + option + "' is written %2C there,"
                + " or the option is given as the system property vitals.agent." + option + " (any text)";
    }

    private static String last(Map<String, Source> values) {
        String key = null;
        for (String k : values.keySet()) {
            key = k;
        }
        return key;
    }

    private static void requireKnown(String key, String from) {
        if (!KNOWN.containsKey(key)) {
            throw new IllegalArgumentException("unknown option '" + key + "' (" + from + "); options are "
                    + String.join(", ", KNOWN.keySet()));
        }
    }

    private static IllegalArgumentException bad(Source s, String why) {
        return new IllegalArgumentException("option '" + s.key + "' (" + s.from + "): " + why + ", was '" + s.value + "'");
    }

    private static boolean bool(Map<String, Source> v, String key) {
        Source s = v.get(key);
        switch (s.value.toLowerCase(Locale.ROOT)) {
            case "true":
                return true;
            case "false":
                return false;
            default:
                throw bad(s, "expected true or false");
        }
    }

    private static int intIn(Map<String, Source> v, String key, int min, int max) {
        Source s = v.get(key);
        return parseInt(s, s.value, min, max);
    }

    private static int parseInt(Source s, String text, int min, int max) {
        try {
            int n = Integer.parseInt(text.trim());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw bad(s, "expected a whole number from " + min + " to " + max);
    }

    private static String ip(Map<String, Source> v, String key) {
        Source s = v.get(key);
        String h = s.value;
        boolean v4 = ipv4Literal(h);
        boolean v6 = h.indexOf(':') >= 0 && onlyChars(h, "0123456789abcdefABCDEF:.") && ipv6Literal(h);
        if (!(v4 || v6 || h.equals("localhost"))) {
            throw bad(s, "expected an IP address literal (no host names: the agent resolves nothing at start)");
        }
        return h;
    }

    /** Four dot-separated decimal octets of 1 to 3 digits, each at most 255 (no regex: premain's thread). */
    static boolean ipv4Literal(String h) {
        int octets = 0;
        int digits = 0;
        int value = 0;
        for (int i = 0; i <= h.length(); i++) {
            char c = i < h.length() ? h.charAt(i) : '.';
            if (c == '.') {
                if (digits == 0 || value > 255 || ++octets > 4) {
                    return false;
                }
                digits = 0;
                value = 0;
            } else if (c >= '0' && c <= '9' && digits < 3) {
                digits++;
                value = value * 10 + (c - '0');
            } else {
                return false;
            }
        }
        return octets == 4;
    }

    private static boolean onlyChars(String text, String allowed) {
        for (int i = 0; i < text.length(); i++) {
            if (allowed.indexOf(text.charAt(i)) < 0) {
                return false;
            }
        }
        return true;
    }

    /** A text with ':' is parsed as an IPv6 literal by the JDK, never looked up in DNS. */
    private static boolean ipv6Literal(String v6) {
        try {
            return java.net.InetAddress.getByName(v6) instanceof java.net.Inet6Address
                    || v6.contains("."); // ::ffff:a.b.c.d parses to an IPv4 address
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    private static List<Integer> ports(Map<String, Source> v, String key) {
        Source s = v.get(key);
        if (s.value.equalsIgnoreCase("auto")) {
            return List.of();
        }
        List<Integer> out = new ArrayList<>();
        for (String p : s.value.split(";", -1)) {
            if (p.isBlank()) {
                throw bad(s, "expected auto or ports separated by ';' (an empty one is a typo)");
            }
            if (p.trim().equalsIgnoreCase("auto")) {
                throw bad(s, "auto stands alone: expected auto or ports separated by ';'");
            }
            int port = parseInt(s, p, 1, 65535);
            if (out.contains(port)) {
                throw bad(s, "port " + port + " is given twice");
            }
            out.add(port);
        }
        return List.copyOf(out);
    }

    private static List<String> workers(Map<String, Source> v, String key) {
        Source s = v.get(key);
        if (s.value.equalsIgnoreCase("none")) {
            return null;
        }
        if (s.value.equalsIgnoreCase("auto")) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (String p : s.value.split(";", -1)) {
            if (p.isEmpty()) {
                throw bad(s, "expected thread-name prefixes separated by ';', auto or none");
            }
            if (p.equalsIgnoreCase("none") || p.equalsIgnoreCase("auto")) {
                throw bad(s, p + " stands alone: expected auto, none, or thread-name prefixes separated by ';'");
            }
            out.add(p);
        }
        return List.copyOf(out);
    }

    private static Readiness readiness(Map<String, Source> v, String key) {
        Source s = v.get(key);
        String r = s.value;
        if (r.equalsIgnoreCase("auto")) {
            return new Readiness(Readiness.Kind.AUTO, null, -1);
        }
        if (r.equalsIgnoreCase("none")) {
            return new Readiness(Readiness.Kind.NONE, null, -1);
        }
        if (r.startsWith("/")) {
            return new Readiness(Readiness.Kind.PATH, requestTarget(s, r), -1);
        }
        try {
            URI u = new URI(r);
            String h = u.getHost();
            if (!"http".equals(u.getScheme()) || h == null || u.getPort() < 1 || u.getPort() > 65535
                    || !(h.equals("127.0.0.1") || h.equals("localhost") || h.equals("[::1]"))) {
                throw bad(s, "expected auto, none, a path such as /health/ready, or http://127.0.0.1:PORT/path (loopback, port given)");
            }
            String path = (u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath())
                    + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
            return new Readiness(Readiness.Kind.URL, path, u.getPort());
        } catch (java.net.URISyntaxException e) {
            throw bad(s, "expected auto, none, a path or an http://127.0.0.1:PORT/path URL");
        }
    }

    /**
     * A path sent as the request target of {@code GET <path> HTTP/1.1}: printable ASCII without
     * spaces, and a valid URI path with an optional query (RFC 9112 section 3.2, origin-form);
     * a space or a line end would make the request line something else.
     *
     * @return the path
     * @throws IllegalArgumentException naming the option when the path cannot be sent as it is
     */
    private static String requestTarget(Source s, String path) {
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c <= ' ' || c >= 0x7f) {
                throw bad(s, "a path is sent as it is in the request line: no spaces, control or non-ASCII"
                        + " characters (percent-encode them, e.g. %20)");
            }
        }
        try {
            URI u = new URI(path);
            if (u.getScheme() != null || u.getRawAuthority() != null || u.getRawFragment() != null) {
                throw bad(s, "expected a path such as /health/ready, with an optional ?query");
            }
        } catch (java.net.URISyntaxException e) {
            throw bad(s, "not a valid path: " + e.getReason() + " at index " + e.getIndex());
        }
        return path;
    }

    private static Duration duration(Map<String, Source> v, String key, Duration min) {
        Source s = v.get(key);
        Optional<Duration> d = parseDuration(s.value);
        if (d.isEmpty()) {
            throw bad(s, "expected a duration such as 500ms, 2s or 1m");
        }
        if (d.get().compareTo(min) < 0) {
            throw bad(s, "must be at least " + format(min));
        }
        if (d.get().compareTo(Duration.ofDays(1)) > 0) {
            throw bad(s, "must be at most 1 day");
        }
        return d.get();
    }

    static Optional<Duration> parseDuration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.startsWith("pt")) {
                return Optional.of(Duration.parse(t));
            }
            if (t.endsWith("ms")) {
                return Optional.of(Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2))));
            }
            if (t.endsWith("s")) {
                return Optional.of(Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1))));
            }
            if (t.endsWith("m")) {
                return Optional.of(Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1))));
            }
        } catch (NumberFormatException | DateTimeParseException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    static String format(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }
}
