package dev.vitals.kubesim.probe;

import dev.vitals.kubesim.model.ContainerExec;
import dev.vitals.kubesim.model.EnvExpansion;
import dev.vitals.kubesim.model.PortResolver;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeOutcome;
import dev.vitals.kubesim.model.ProbeResult;
import dev.vitals.kubesim.model.ProbeSpec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Performs one probe attempt exactly as the kubelet does and returns the raw outcome
 * (§11–§14 of docs/spec/kubelet-probes.md). Stateless apart from its settings; thread-safe.
 *
 * <ul>
 *   <li>HTTP (kubelet: pkg/probe/http/http.go, request.go): a fresh connection per attempt
 *       with {@code Connection: close}; one deadline {@code T} over connect, TLS, redirects,
 *       headers and body (R59); 200–299 Success, 300–399 Warning, else Failure (R61);
 *       same-hostname redirects only (301, 302, 303, 307, 308: a 300 or 304 is not followed, as Go's
 *       client does not), at most 10 requests (R62); body capped at 10 KiB (R60);
 *       User-Agent {@code kube-probe/<major>.<minor>} and Accept {@code *}{@code /*} (R57);
 *       HTTPS without certificate checks (R58).</li>
 *   <li>TCP (pkg/probe/tcp/tcp.go): connect within {@code T}, close at once (R63).</li>
 *   <li>gRPC (pkg/probe/grpc/grpc.go): {@code grpc.health.v1.Health/Check} under one deadline
 *       (R64–R66); see {@code GrpcProber}.</li>
 *   <li>exec (pkg/probe/exec/exec.go): runs a process where its {@link ContainerExec} puts it
 *       (inside the container instance's cgroup for a simulation with limits; else a local
 *       process); exit 0 Success, else Failure; timeout Failure; start failure, or an instance
 *       that is not running, error (R68).</li>
 * </ul>
 */
public final class Prober {
    /** kubelet: maxRespBodyLength = 10 KiB (R60). */
    public static final int MAX_BODY = 10 * 1024;
    private static final int MAX_REQUESTS = 10;
    private final String podIp;
    private final Map<String, Integer> ports;
    private final String userAgent;
    private final Map<String, String> env;
    private final ContainerExec container;

    /**
     * @param podIp address used when a probe has no host (R3, R4, R5); loopback here
     * @param ports container port names → numbers, for named ports (R56)
     * @param kubeletVersion {@code <major>.<minor>} for the User-Agent, e.g. {@code 1.36}
     */
    public Prober(String podIp, Map<String, Integer> ports, String kubeletVersion) {
        this(podIp, ports, kubeletVersion, Map.of());
    }

    /**
     * @param podIp address used when a probe has no host (R3, R4, R5); loopback here
     * @param ports container port names → numbers, for named ports (R56)
     * @param kubeletVersion {@code <major>.<minor>} for the User-Agent, e.g. {@code 1.36}
     * @param env the container's static environment, for {@code $(VAR)} in exec commands (R68)
     */
    public Prober(String podIp, Map<String, Integer> ports, String kubeletVersion, Map<String, String> env) {
        this(podIp, ports, "kube-probe/" + Objects.requireNonNull(kubeletVersion, "kubeletVersion"), env, ContainerExec.LOCAL);
    }

    private Prober(String podIp, Map<String, Integer> ports, String userAgent, Map<String, String> env, ContainerExec container) {
        this.podIp = Objects.requireNonNull(podIp, "podIp");
        this.ports = Map.copyOf(ports);
        this.userAgent = userAgent;
        this.env = Map.copyOf(env);
        this.container = Objects.requireNonNull(container, "container");
    }

    /**
     * @param container where exec probes and exec hooks run, e.g. {@code processRuntime::execArgv}
     *        (inside the container instance's cgroup); the default is {@link ContainerExec#LOCAL}
     * @return a prober like this one that runs exec commands there
     */
    public Prober inContainer(ContainerExec container) {
        return new Prober(podIp, ports, userAgent, env, container);
    }

    /**
     * One attempt against container instance 1. Never throws for network conditions: they are outcomes.
     *
     * @param probe the probe
     * @return the raw outcome with the attempt's latency
     */
    public ProbeOutcome probe(ProbeSpec probe) {
        return probe(probe, 1);
    }

    /**
     * One attempt. Never throws for network conditions: they are outcomes.
     *
     * @param probe the probe
     * @param instance the container instance it targets (1, 2, …): where an exec probe runs
     * @return the raw outcome with the attempt's latency
     */
    public ProbeOutcome probe(ProbeSpec probe, int instance) {
        long start = System.nanoTime();
        ProbeOutcome o;
        int timeout = probe.timeoutSeconds();
        o = probe.handler().match(g -> http(g, timeout, start), t -> tcp(t, timeout, start),
                g -> GrpcProber.check(podIp, g, timeout, userAgent), e -> exec(e, timeout, instance));
        return new ProbeOutcome(o.result(), o.message(), Duration.ofNanos(System.nanoTime() - start), 1);
    }

    /**
     * One HTTP GET on the pod IP, made as an httpGet probe makes it (the same request, headers,
     * redirects, status ranges and 10 KiB body cap), under a deadline that need not be whole
     * seconds. The module's one way to GET: replay's boot calibration, {@code fleet calibrate}
     * and the live fleet's clients use it, so what "answers" means is the kubelet's everywhere.
     * Never throws for network conditions: they are outcomes. Thread-safe.
     *
     * @param port the port on the pod IP, 1-65535
     * @param path the request path, starting with {@code /}
     * @param timeout one deadline over connect, headers and body; more than 0
     * @return the outcome with its latency: {@code result().counted() == SUCCESS} for 200-399
     * @throws IllegalArgumentException when the port, path or timeout is out of range
     */
    public ProbeOutcome get(int port, String path, Duration timeout) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be 1-65535, was " + port);
        }
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("path must start with /, was '" + path + "'");
        }
        if (timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must be more than 0, was " + timeout);
        }
        long start = System.nanoTime();
        ProbeHandler.HttpGet g = new ProbeHandler.HttpGet(Optional.empty(), ProbeHandler.PortRef.of(port), path, "HTTP",
                List.of());
        long deadline = start + timeout.toNanos();
        ProbeOutcome o = httpUntil(g, deadline, (int) Math.max(1, timeout.toSeconds()));
        return new ProbeOutcome(o.result(), o.message(), Duration.ofNanos(System.nanoTime() - start), 1);
    }

    // ---- lifecycle hooks -------------------------------------------------------------------

    /**
     * Runs a lifecycle hook's {@code exec} or {@code httpGet} handler once, blocking (kubelet:
     * pkg/kubelet/lifecycle/handlers.go {@code handlerRunner.Run}). {@code exec} runs the command
     * as written (no {@code $(VAR)} expansion) and fails on a non-zero exit; {@code httpGet} sends
     * one request with {@code User-Agent: kube-lifecycle/<version>} and fails only when no response
     * comes ({@code runHTTPHandler} reads no status code); redirects are not followed here.
     *
     * @param handler a {@link ProbeHandler.Exec} or {@link ProbeHandler.HttpGet}
     * @param instance the container instance it targets (1, 2, …): where an exec hook runs
     * @param limit how long to wait; past it the hook counts as failed (the kubelet itself sets no
     *        timeout: its wait is bounded by the grace period for preStop, by nothing for postStart)
     * @return empty on success, else the failure message
     */
    public Optional<String> runHook(ProbeHandler handler, int instance, Duration limit) {
        Optional<String> invalid = Optional.of("Cannot run handler: invalid handler: " + handler.describe());
        return handler.match(g -> httpHook(g, limit), t -> invalid, g -> invalid, e -> execHook(e.command(), instance, limit));
    }

    private Optional<String> execHook(List<String> command, int instance, Duration limit) {
        Optional<List<String>> argv = container.argv(instance, command);
        if (argv.isEmpty()) {
            return Optional.of("Exec lifecycle hook (" + command + ") failed - error: " + notRunning(instance));
        }
        Process p;
        try {
            p = new ProcessBuilder(argv.get()).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException ex) {
            return Optional.of("Exec lifecycle hook (" + command + ") failed - error: " + ex.getMessage());
        }
        try {
            if (!p.waitFor(Math.max(1, limit.toMillis()), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                return Optional.of("Exec lifecycle hook (" + command + ") did not finish within " + limit.toSeconds() + "s");
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            return Optional.of("Exec lifecycle hook (" + command + ") interrupted");
        }
        return p.exitValue() == 0 ? Optional.empty()
                : Optional.of("Exec lifecycle hook (" + command + ") failed - error: command '" + String.join(" ", command)
                        + "' exited with " + p.exitValue());
    }

    /** The runtime's answer to an exec in a container that is not running (the CRI's ExecSync fails). */
    private static String notRunning(int instance) {
        return "failed to exec in container: container instance " + instance + " is not running";
    }

    private Optional<String> httpHook(ProbeHandler.HttpGet g, Duration limit) {
        PortResolver.Resolution res = PortResolver.resolve(g.port(), ports);
        if (res instanceof PortResolver.Unresolved u) {
            return Optional.of("HTTP lifecycle hook (" + g.path() + ") failed - error: " + u.error());
        }
        String host = g.host().orElse(podIp);
        URI url;
        try {
            url = new URI(g.scheme().toLowerCase(Locale.ROOT) + "://" + hostForUri(host) + ":" + res.port().orElseThrow()
                    + (g.path().startsWith("/") ? "" : "/") + g.path());
        } catch (URISyntaxException e) {
            return Optional.of("HTTP lifecycle hook (" + g.path() + ") failed - error: " + e.getMessage());
        }
        List<String[]> headers = requestHeaders(g.headers(), userAgent.replace("kube-probe/", "kube-lifecycle/"));
        Optional<String> customHost = headers.stream().filter(h -> h[0].equals("Host")).map(h -> h[1])
                .filter(v -> !v.isEmpty()).findFirst();
        headers.removeIf(h -> h[0].equals("Host"));
        int seconds = (int) Math.max(1, Math.min(Integer.MAX_VALUE, limit.toSeconds()));
        try {
            exchange(url, customHost.orElse(null), headers, null, System.nanoTime() + limit.toNanos(), seconds);
            return Optional.empty(); // any response: handlers.go discards it
        } catch (IOException e) {
            return Optional.of("HTTP lifecycle hook (" + g.path() + ") failed - error: Get \"" + url + "\": " + describe(e));
        }
    }

    // ---- TCP ----------------------------------------------------------------------------

    private ProbeOutcome tcp(ProbeHandler.TcpSocket t, int timeoutSeconds, long start) {
        PortResolver.Resolution res = PortResolver.resolve(t.port(), ports);
        if (res instanceof PortResolver.Unresolved u) {
            return ProbeOutcome.of(ProbeResult.ERROR, u.error(), Duration.ZERO); // R22
        }
        int port = res.port().orElseThrow();
        String host = t.host().orElse(podIp);
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), timeoutSeconds * 1000);
            s.setSoLinger(true, 1);
            return ProbeOutcome.of(ProbeResult.SUCCESS, "", Duration.ZERO);
        } catch (IOException e) {
            return ProbeOutcome.of(ProbeResult.FAILURE, "dial tcp " + host + ":" + port + ": " + describe(e), Duration.ZERO);
        }
    }

    // ---- exec ---------------------------------------------------------------------------

    private ProbeOutcome exec(ProbeHandler.Exec e, int timeoutSeconds, int instance) {
        List<String> command = EnvExpansion.expand(e.command(), env); // R68: $(VAR) from the static env
        Optional<List<String>> argv = container.argv(instance, command);
        if (argv.isEmpty()) {
            // prober.go: an exec that errors is an error, not a Failure; worker.go discards the result
            return ProbeOutcome.of(ProbeResult.ERROR, notRunning(instance), Duration.ZERO);
        }
        Process p;
        try {
            p = new ProcessBuilder(argv.get()).redirectErrorStream(true).start();
        } catch (IOException ex) {
            return ProbeOutcome.of(ProbeResult.ERROR, "exec failed: " + ex.getMessage(), Duration.ZERO);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread reader = new Thread(() -> {
            byte[] buf = new byte[4096];
            try (InputStream in = p.getInputStream()) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    synchronized (out) {
                        if (out.size() < MAX_BODY) {
                            out.write(buf, 0, Math.min(n, MAX_BODY - out.size()));
                        }
                    }
                }
            } catch (IOException ignored) {
                // process gone
            }
        }, "vitals-kubesim-exec-output");
        reader.setDaemon(true);
        reader.start();
        try {
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                // exec.go: the TimeoutError's text is the output (the runtime's "command %q timed out")
                return ProbeOutcome.of(ProbeResult.FAILURE, "command \"" + String.join(" ", command) + "\" timed out",
                        Duration.ZERO);
            }
            reader.join(1000);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            return ProbeOutcome.of(ProbeResult.ERROR, "interrupted", Duration.ZERO);
        }
        String text;
        synchronized (out) {
            text = out.toString(StandardCharsets.UTF_8);
        }
        if (p.exitValue() == 125 && text.startsWith(ContainerExec.JOIN_FAILED)) {
            return ProbeOutcome.of(ProbeResult.ERROR, notRunning(instance), Duration.ZERO); // it exited meanwhile
        }
        // exec.go: the output, success or not, is the command's combined output (up to 10 KiB)
        return ProbeOutcome.of(p.exitValue() == 0 ? ProbeResult.SUCCESS : ProbeResult.FAILURE, text, Duration.ZERO);
    }

    // ---- HTTP ---------------------------------------------------------------------------

    private ProbeOutcome http(ProbeHandler.HttpGet g, int timeoutSeconds, long start) {
        return httpUntil(g, start + TimeUnit.SECONDS.toNanos(timeoutSeconds), timeoutSeconds);
    }

    private ProbeOutcome httpUntil(ProbeHandler.HttpGet g, long deadline, int timeoutSeconds) {
        PortResolver.Resolution res = PortResolver.resolve(g.port(), ports);
        if (res instanceof PortResolver.Unresolved u) {
            return ProbeOutcome.of(ProbeResult.ERROR, u.error(), Duration.ZERO); // R22
        }
        URI url;
        try {
            url = url(g, res.port().orElseThrow());
        } catch (URISyntaxException e) {
            return ProbeOutcome.of(ProbeResult.ERROR, "cannot build request: " + e.getMessage(), Duration.ZERO);
        }
        List<String[]> headers = requestHeaders(g.headers(), userAgent);
        Optional<String> customHost = takeHost(headers);
        String originalHostname = url.getHost();
        String referer = null;
        for (int requests = 1;; requests++) {
            Response r;
            try {
                r = exchange(url, customHost.orElse(null), headers, referer, deadline, timeoutSeconds);
            } catch (BodyReadException e) {
                return ProbeOutcome.of(ProbeResult.ERROR, e.getMessage(), Duration.ZERO);
            } catch (IOException e) {
                return ProbeOutcome.of(ProbeResult.FAILURE, "Get \"" + url + "\": " + describe(e), Duration.ZERO);
            }
            if (r.status >= 200 && r.status < 300) {
                return ProbeOutcome.of(ProbeResult.SUCCESS, r.body, Duration.ZERO); // http.go: the output is the body
            }
            if (r.status >= 300 && r.status < 400) {
                // Go's client follows only 301, 302, 303, 307 and 308 (net/http client.go redirectBehavior):
                // a 300 or 304 comes back as it is, Location or not, and the kubelet reads it as a Warning
                String location = FOLLOWED.contains(r.status) ? r.header("Location") : null;
                if (location != null) {
                    URI next;
                    try {
                        next = url.resolve(location.trim());
                    } catch (IllegalArgumentException e) {
                        return ProbeOutcome.of(ProbeResult.FAILURE, "Get \"" + url + "\": failed to parse Location header "
                                + location, Duration.ZERO);
                    }
                    if (Objects.equals(next.getHost(), originalHostname)) {
                        if (requests >= MAX_REQUESTS) {
                            return ProbeOutcome.of(ProbeResult.FAILURE, "Get \"" + next + "\": stopped after 10 redirects",
                                    Duration.ZERO);
                        }
                        if (next.isAbsolute() && location.trim().matches("(?i)^[a-z][a-z0-9+.-]*:.*")) {
                            customHost = Optional.empty();
                        }
                        referer = url.toString();
                        url = next;
                        continue;
                    }
                }
                return ProbeOutcome.of(ProbeResult.WARNING, "Probe terminated redirects, Response body: " + r.body,
                        Duration.ZERO);
            }
            return ProbeOutcome.of(ProbeResult.FAILURE, "HTTP probe failed with statuscode: " + r.status, Duration.ZERO);
        }
    }

    /** @return the probe's URL: its scheme, host (the pod IP when not given), port and path */
    private URI url(ProbeHandler.HttpGet g, int port) throws URISyntaxException {
        String scheme = g.scheme().toLowerCase(Locale.ROOT);
        String host = g.host().orElse(podIp);
        return new URI(scheme + "://" + hostForUri(host) + ":" + port + (g.path().startsWith("/") ? "" : "/") + g.path());
    }

    /** @return a non-empty Host header given by the probe, which is then removed from {@code headers} (it is the request's host) */
    private static Optional<String> takeHost(List<String[]> headers) {
        Optional<String> customHost = headers.stream().filter(h -> h[0].equals("Host")).map(h -> h[1])
                .filter(v -> !v.isEmpty()).findFirst();
        headers.removeIf(h -> h[0].equals("Host"));
        return customHost;
    }

    /** Redirect statuses Go's HTTP client follows (net/http client.go redirectBehavior). */
    private static final java.util.Set<Integer> FOLLOWED = java.util.Set.of(301, 302, 303, 307, 308);

    /**
     * The request headers as the kubelet builds them ({@code request.go} newProbeRequest and
     * v1HeaderToHTTPHeader, R57): names are canonicalized ({@code accept} → {@code Accept},
     * {@code FOO-bAR} → {@code Foo-Bar}), so a user header of any case replaces a default;
     * {@code User-Agent} defaults to {@code kube-probe/X.Y} and {@code Accept} to {@code *}{@code /*};
     * an empty {@code Accept} is removed, and an empty {@code User-Agent} is not sent (Go's
     * transport skips it). {@code Host} stays in the list for the caller (an empty one means
     * the URL's host).
     *
     * @param user the probe's {@code httpHeaders}, in order; a name may repeat
     * @param userAgent the default User-Agent
     * @return name/value pairs in send order, names canonical
     */
    static List<String[]> requestHeaders(List<ProbeHandler.HttpHeader> user, String userAgent) {
        List<String[]> headers = new ArrayList<>();
        for (ProbeHandler.HttpHeader h : user) {
            headers.add(new String[] {canonicalHeaderKey(h.name()), h.value()});
        }
        boolean hasUa = headers.stream().anyMatch(h -> h[0].equals("User-Agent"));
        boolean hasAccept = headers.stream().anyMatch(h -> h[0].equals("Accept"));
        if (!hasUa) {
            headers.add(0, new String[] {"User-Agent", userAgent});
        }
        if (!hasAccept) {
            headers.add(new String[] {"Accept", "*/*"});
        } else if (headers.stream().filter(h -> h[0].equals("Accept")).findFirst().get()[1].isEmpty()) {
            headers.removeIf(h -> h[0].equals("Accept")); // Accept overridden but empty: removed
        }
        // Go's transport sends no User-Agent whose (first) value is empty
        if (headers.stream().filter(h -> h[0].equals("User-Agent")).findFirst().get()[1].isEmpty()) {
            headers.removeIf(h -> h[0].equals("User-Agent"));
        }
        return headers;
    }

    /**
     * Go's {@code textproto.CanonicalMIMEHeaderKey}: the first letter and each letter after a
     * hyphen upper case, the rest lower case; a name with a space or other invalid byte is
     * left as is.
     *
     * @param name a header name
     * @return its canonical form
     */
    static String canonicalHeaderKey(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean token = c < 127 && c > 32 && "\"(),/:;<=>?@[]\\{}".indexOf(c) < 0;
            if (!token) {
                return name;
            }
        }
        StringBuilder b = new StringBuilder(name.length());
        boolean upper = true;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            b.append(upper ? Character.toUpperCase(c) : Character.toLowerCase(c));
            upper = c == '-';
        }
        return b.toString();
    }

    private static String hostForUri(String host) {
        return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    private static final class Response {
        int status;
        final List<String[]> headers = new ArrayList<>();
        String body = "";

        String header(String name) {
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name)) {
                    return h[1];
                }
            }
            return null;
        }
    }

    /** The deadline expired or the connection failed while reading the body: an error (R59). */
    private static final class BodyReadException extends IOException {
        private static final long serialVersionUID = 1L;

        BodyReadException(String message) {
            super(message);
        }
    }

    private Response exchange(URI url, String customHost, List<String[]> headers, String referer, long deadline,
            int timeoutSeconds) throws IOException {
        boolean https = "https".equals(url.getScheme());
        int port = url.getPort() > 0 ? url.getPort() : (https ? 443 : 80);
        String host = url.getHost();
        String clientTimeout = " (Client.Timeout exceeded while awaiting headers)";
        checkHeaders(customHost, headers); // before any connection, as Go's Transport.roundTrip
        try (Socket plain = new Socket()) {
            plain.setTcpNoDelay(true);
            plain.connect(new InetSocketAddress(stripBrackets(host), port), remainingMs(deadline, timeoutSeconds));
            Socket s = plain;
            if (https) {
                SSLSocket ssl = (SSLSocket) insecureTls().getSocketFactory().createSocket(plain, stripBrackets(host), port, true);
                ssl.setSoTimeout(remainingMs(deadline, timeoutSeconds));
                ssl.startHandshake();
                s = ssl;
            }
            StringBuilder req = new StringBuilder();
            String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
            if (url.getRawQuery() != null) {
                path += "?" + url.getRawQuery();
            }
            req.append("GET ").append(path).append(" HTTP/1.1\r\n");
            boolean defaultPort = (https && port == 443) || (!https && port == 80);
            req.append("Host: ").append(customHost != null ? customHost : host + (defaultPort ? "" : ":" + port)).append("\r\n");
            for (String[] h : headers) {
                req.append(h[0]).append(": ").append(h[1]).append("\r\n");
            }
            if (referer != null) {
                req.append("Referer: ").append(referer).append("\r\n");
            }
            req.append("Connection: close\r\n\r\n");
            OutputStream out = s.getOutputStream();
            s.setSoTimeout(remainingMs(deadline, timeoutSeconds));
            out.write(req.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            Response r;
            try {
                do {
                    r = readHead(s, in, deadline, timeoutSeconds);
                } while (r.status >= 100 && r.status < 200);
            } catch (SocketTimeoutException e) {
                throw new SocketTimeoutException("context deadline exceeded" + clientTimeout);
            }
            try {
                r.body = readBody(s, in, r, deadline, timeoutSeconds);
            } catch (IOException e) {
                throw new BodyReadException("error reading HTTP response body: " + (e instanceof SocketTimeoutException
                        ? "context deadline exceeded (Client.Timeout or context cancellation while reading body)"
                        : describe(e)));
            }
            return r;
        } catch (SocketTimeoutException e) {
            String m = e.getMessage();
            throw new SocketTimeoutException(m != null && m.contains("Client.Timeout") ? m
                    : "dial or TLS timed out: context deadline exceeded" + clientTimeout);
        }
    }

    private static String stripBrackets(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    private static int remainingMs(long deadline, int timeoutSeconds) throws SocketTimeoutException {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
            throw new SocketTimeoutException("context deadline exceeded (Client.Timeout exceeded while awaiting headers)");
        }
        return (int) Math.min(left, Integer.MAX_VALUE);
    }

    private static Response readHead(Socket s, InputStream in, long deadline, int t) throws IOException {
        Response r = new Response();
        String status = readLine(s, in, deadline, t);
        if (status == null) {
            throw new IOException("EOF (server closed the connection before sending a response)");
        }
        String[] parts = status.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
            throw new IOException("malformed HTTP response \"" + status + "\"");
        }
        try {
            r.status = Integer.parseInt(parts[1]);
        } catch (NumberFormatException e) {
            throw new IOException("malformed HTTP status code \"" + parts[1] + "\"");
        }
        String line;
        while ((line = readLine(s, in, deadline, t)) != null && !line.isEmpty()) {
            int c = line.indexOf(':');
            if (c > 0) {
                r.headers.add(new String[] {line.substring(0, c).trim(), line.substring(c + 1).trim()});
            }
        }
        if (line == null) {
            throw new IOException("unexpected EOF while reading headers");
        }
        return r;
    }

    private static String readLine(Socket s, InputStream in, long deadline, int t) throws IOException {
        StringBuilder sb = new StringBuilder();
        while (true) {
            s.setSoTimeout(remainingMs(deadline, t));
            int b = in.read();
            if (b < 0) {
                return sb.length() == 0 ? null : sb.toString();
            }
            if (b == '\n') {
                int len = sb.length();
                if (len > 0 && sb.charAt(len - 1) == '\r') {
                    sb.setLength(len - 1);
                }
                return sb.toString();
            }
            sb.append((char) b);
            if (sb.length() > 65536) {
                throw new IOException("header line too long");
            }
        }
    }

    private static String readBody(Socket s, InputStream in, Response r, long deadline, int t) throws IOException {
        if (r.status == 204 || r.status == 304) {
            return "";
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        String te = r.header("Transfer-Encoding");
        String cl = r.header("Content-Length");
        if (te != null && te.toLowerCase(Locale.ROOT).contains("chunked")) {
            while (body.size() < MAX_BODY) {
                String sizeLine = readLine(s, in, deadline, t);
                if (sizeLine == null) {
                    throw new IOException("unexpected EOF in chunked body");
                }
                int semi = sizeLine.indexOf(';');
                int size;
                try {
                    size = Integer.parseInt((semi >= 0 ? sizeLine.substring(0, semi) : sizeLine).trim(), 16);
                } catch (NumberFormatException e) {
                    throw new IOException("malformed chunk size \"" + sizeLine + "\"");
                }
                if (size == 0) {
                    break;
                }
                readN(s, in, body, size, deadline, t);
                readLine(s, in, deadline, t);
            }
        } else if (cl != null) {
            long n;
            try {
                n = Long.parseLong(cl.trim());
            } catch (NumberFormatException e) {
                throw new IOException("malformed Content-Length \"" + cl + "\"");
            }
            readN(s, in, body, (int) Math.min(n, MAX_BODY), deadline, t);
        } else {
            byte[] buf = new byte[4096];
            while (body.size() < MAX_BODY) {
                s.setSoTimeout(remainingMs(deadline, t));
                int n = in.read(buf, 0, Math.min(buf.length, MAX_BODY - body.size()));
                if (n < 0) {
                    break;
                }
                body.write(buf, 0, n);
            }
        }
        return body.toString(StandardCharsets.UTF_8);
    }

    private static void readN(Socket s, InputStream in, ByteArrayOutputStream body, int n, long deadline, int t)
            throws IOException {
        byte[] buf = new byte[4096];
        int left = Math.min(n, MAX_BODY - body.size());
        int skip = n - left;
        while (left > 0) {
            s.setSoTimeout(remainingMs(deadline, t));
            int got = in.read(buf, 0, Math.min(buf.length, left));
            if (got < 0) {
                throw new IOException("unexpected EOF");
            }
            body.write(buf, 0, got);
            left -= got;
        }
        if (skip > 0 && body.size() >= MAX_BODY) {
            return; // cut off silently (R60)
        }
    }

    private static SSLContext insecureTls() throws IOException {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, new TrustManager[] {new X509TrustManager() {
                @Override
                public void checkClientTrusted(X509Certificate[] chain, String authType) {
                }

                @Override
                public void checkServerTrusted(X509Certificate[] chain, String authType) {
                    // R58: kubelet skips certificate verification
                }

                @Override
                public X509Certificate[] getAcceptedIssuers() {
                    return new X509Certificate[0];
                }
            }}, new SecureRandom());
            return ctx;
        } catch (java.security.GeneralSecurityException e) {
            throw new IOException("TLS unavailable: " + e.getMessage(), e);
        }
    }

    /**
     * Go's checks before a request leaves (net/http transport.go roundTrip, and request.go's Host
     * check): a header name must be a token, a value may hold no control character but a tab
     * (httpguts.ValidHeaderFieldName/ValidHeaderFieldValue), a Host no control character or space.
     * A CR or LF in a value never reaches the wire there; the probe fails with Go's error (kubelet:
     * pkg/probe/http/http.go returns probe.Failure with it).
     *
     * @throws IOException with Go's message when a header cannot be sent
     */
    static void checkHeaders(String customHost, List<String[]> headers) throws IOException {
        if (customHost != null && customHost.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
            throw new IOException("http: invalid Host header");
        }
        for (String[] h : headers) {
            if (h[0].isEmpty() || !h[0].chars().allMatch(Prober::isTokenChar)) {
                throw new IOException("net/http: invalid header field name \"" + h[0] + "\"");
            }
            if (h[1].chars().anyMatch(c -> (c < ' ' && c != '\t') || c == 0x7f)) {
                // Go leaves the value out of the message: it may be a secret
                throw new IOException("net/http: invalid header field value for \"" + h[0] + "\"");
            }
        }
    }

    private static boolean isTokenChar(int c) {
        return c > ' ' && c < 0x7f && "\"(),/:;<=>?@[\\]{}".indexOf(c) < 0;
    }

    static String describe(IOException e) {
        if (e instanceof ConnectException) {
            return "connect: connection refused";
        }
        if (e instanceof SocketTimeoutException) {
            String m = e.getMessage();
            return m == null || m.equals("Connect timed out") || m.equals("connect timed out")
                    ? "i/o timeout (Client.Timeout exceeded while awaiting headers)" : m;
        }
        if (e instanceof java.net.UnknownHostException) {
            return "no such host " + e.getMessage();
        }
        String m = e.getMessage();
        if (m != null && m.toLowerCase(Locale.ROOT).contains("reset")) {
            return "read: connection reset by peer";
        }
        return m == null ? e.getClass().getSimpleName() : m;
    }
}
