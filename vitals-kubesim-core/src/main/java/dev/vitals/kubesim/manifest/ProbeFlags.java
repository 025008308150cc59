package dev.vitals.kubesim.manifest;

import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses a probe given on the command line:
 * <pre>{@code
 * HANDLER[,field=value]...
 *   HANDLER  http://[HOST]:PORT[/PATH]   https://[HOST]:PORT[/PATH]   (PORT may be a port name)
 *            tcp://[HOST]:PORT           grpc://:PORT[/SERVICE]        exec:COMMAND ARG...
 *   field    initialDelaySeconds periodSeconds timeoutSeconds successThreshold failureThreshold
 *            terminationGracePeriodSeconds header=Name:Value (repeatable)
 * e.g. --liveness http://:8080/livez,periodSeconds=1,failureThreshold=3
 * }</pre>
 * Field names are kubelet's; short aliases {@code delay period timeout success failure grace}
 * are accepted. Stateless.
 */
public final class ProbeFlags {
    private static final Pattern URL = Pattern.compile("(https?|tcp|grpc)://(\\[[^]]*\\]|[^:/]*):([A-Za-z0-9-]+)(/.*)?");

    private ProbeFlags() {
    }

    /**
     * @param type probe type
     * @param spec the flag value
     * @return a raw builder (validation happens in {@code build()})
     * @throws InvalidInputException when the text cannot be parsed
     */
    public static ProbeSpec.Builder parse(ProbeType type, String spec) {
        String flag = "--" + type.label();
        ProbeSpec.Builder b = ProbeSpec.builder(type).fieldPrefix(flag);
        List<String> parts = new ArrayList<>(Arrays.asList(spec.split(",")));
        if (parts.isEmpty()) { // "," splits to nothing
            throw new InvalidInputException(flag + " '" + spec + "': no handler (give http://:PORT/PATH, tcp://:PORT, grpc://:PORT or exec:COMMAND)");
        }
        String handler = parts.remove(0).trim();
        List<ProbeHandler.HttpHeader> headers = new ArrayList<>();
        for (String p : parts) {
            int eq = p.indexOf('=');
            if (eq <= 0) {
                throw new InvalidInputException(flag + " '" + spec + "': expected field=value, got '" + p + "'");
            }
            String k = p.substring(0, eq).trim();
            String v = p.substring(eq + 1).trim();
            if (k.equals("header")) {
                int c = v.indexOf(':');
                if (c <= 0) {
                    throw new InvalidInputException(flag + ": header must be Name:Value, got '" + v + "'");
                }
                headers.add(new ProbeHandler.HttpHeader(v.substring(0, c).trim(), v.substring(c + 1).trim()));
                continue;
            }
            long n;
            try {
                n = Long.parseLong(v);
            } catch (NumberFormatException e) {
                throw new InvalidInputException(flag + ": " + k + " must be a whole number, got '" + v + "'");
            }
            field(b, flag, k, n);
        }
        return b.handler(handler(flag, spec, handler, headers));
    }

    /** The probe's numeric fields by kubelet's names and their short forms (delay, period, ...): the builder's setter. */
    private static final Map<String, java.util.function.ObjLongConsumer<ProbeSpec.Builder>> FIELDS = Map.ofEntries(
            Map.entry("initialDelaySeconds", ProbeSpec.Builder::initialDelaySeconds),
            Map.entry("delay", ProbeSpec.Builder::initialDelaySeconds),
            Map.entry("periodSeconds", ProbeSpec.Builder::periodSeconds),
            Map.entry("period", ProbeSpec.Builder::periodSeconds),
            Map.entry("timeoutSeconds", ProbeSpec.Builder::timeoutSeconds),
            Map.entry("timeout", ProbeSpec.Builder::timeoutSeconds),
            Map.entry("successThreshold", ProbeSpec.Builder::successThreshold),
            Map.entry("success", ProbeSpec.Builder::successThreshold),
            Map.entry("failureThreshold", ProbeSpec.Builder::failureThreshold),
            Map.entry("failure", ProbeSpec.Builder::failureThreshold),
            Map.entry("terminationGracePeriodSeconds", ProbeSpec.Builder::terminationGracePeriodSeconds),
            Map.entry("grace", ProbeSpec.Builder::terminationGracePeriodSeconds));

    /** Sets kubelet's field {@code k} (or its short name) to {@code n}; validated in {@code build()}. */
    private static void field(ProbeSpec.Builder b, String flag, String k, long n) {
        java.util.function.ObjLongConsumer<ProbeSpec.Builder> set = FIELDS.get(k);
        if (set == null) {
            throw new InvalidInputException(flag + ": unknown field '" + k + "' (initialDelaySeconds, periodSeconds, "
                    + "timeoutSeconds, successThreshold, failureThreshold, terminationGracePeriodSeconds, header)");
        }
        set.accept(b, n);
    }

    /** @return the handler {@code http://[HOST]:PORT/PATH}, {@code https://…}, {@code tcp://…}, {@code grpc://:PORT[/SERVICE]} or {@code exec:…} */
    private static ProbeHandler handler(String flag, String spec, String handler, List<ProbeHandler.HttpHeader> headers) {
        if (handler.startsWith("exec:")) {
            List<String> cmd = new ArrayList<>();
            for (String w : handler.substring(5).trim().split("\\s+")) {
                if (!w.isEmpty()) {
                    cmd.add(w);
                }
            }
            return new ProbeHandler.Exec(cmd);
        }
        Matcher m = URL.matcher(handler);
        if (!m.matches()) {
            throw new InvalidInputException(flag + " '" + spec + "': expected http://[HOST]:PORT/PATH, https://…, "
                    + "tcp://[HOST]:PORT, grpc://:PORT[/SERVICE] or exec:COMMAND");
        }
        String scheme = m.group(1);
        Optional<String> host = m.group(2).isEmpty() ? Optional.empty() : Optional.of(m.group(2));
        String portText = m.group(3);
        ProbeHandler.PortRef port = portText.matches("\\d+") ? ProbeHandler.PortRef.of(parsePort(flag, portText))
                : ProbeHandler.PortRef.named(portText);
        String path = m.group(4) == null ? "/" : m.group(4);
        switch (scheme) {
            case "http":
            case "https":
                return new ProbeHandler.HttpGet(host, port, path, scheme.equals("http") ? "HTTP" : "HTTPS", headers);
            case "tcp":
                return new ProbeHandler.TcpSocket(host, port);
            default:
                if (port.isNamed()) {
                    throw new InvalidInputException(flag + ": grpc takes a port number, not a name (R11)");
                }
                if (host.isPresent()) {
                    throw new InvalidInputException(flag + ": grpc has no host; the kubelet always dials the pod IP (R64)");
                }
                return new ProbeHandler.Grpc(port.number(), path.equals("/") ? "" : path.substring(1));
        }
    }

    private static int parsePort(String flag, String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new InvalidInputException(flag + ": port out of range: " + text);
        }
    }
}
