package dev.vitals.kubesim.model;

import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.input.Violation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * One probe with kubelet's defaults applied (R2, R3). Mirrors the Kubernetes {@code Probe} type;
 * times are whole seconds as in the API. Immutable and thread-safe.
 *
 * <p>Build one with {@link #builder(ProbeType)}: the builder holds raw values as written
 * (unset = 0, like the API), applies the defaults and checks the API server's validation rules
 * (R1, R8–R11) in {@link Builder#build()}.
 *
 * @param type which probe this is
 * @param handler the one handler
 * @param initialDelaySeconds D, ≥ 0 (no default)
 * @param timeoutSeconds T, ≥ 1 (default 1)
 * @param periodSeconds P, ≥ 1 (default 10)
 * @param successThreshold ST, ≥ 1 (default 1; exactly 1 for liveness and startup)
 * @param failureThreshold FT, ≥ 1 (default 3)
 * @param terminationGracePeriodSeconds probe-level grace (R10, R43); empty = use the pod's
 */
public record ProbeSpec(ProbeType type, ProbeHandler handler, int initialDelaySeconds, int timeoutSeconds,
        int periodSeconds, int successThreshold, int failureThreshold, OptionalLong terminationGracePeriodSeconds) {

    /**
     * Validates the components.
     *
     * @param type which probe this is
     * @param handler the one handler
     * @param initialDelaySeconds D, ≥ 0 (no default)
     * @param timeoutSeconds T, ≥ 1 (default 1)
     * @param periodSeconds P, ≥ 1 (default 10)
     * @param successThreshold ST, ≥ 1 (default 1; exactly 1 for liveness and startup)
     * @param failureThreshold FT, ≥ 1 (default 3)
     * @param terminationGracePeriodSeconds probe-level grace (R10, R43); empty = use the pod's
     * @throws NullPointerException if a required component is null
     */
    public ProbeSpec {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(handler, "handler");
        Objects.requireNonNull(terminationGracePeriodSeconds, "terminationGracePeriodSeconds");
    }

    /** @return P as a duration */
    public Duration period() {
        return Duration.ofSeconds(periodSeconds);
    }

    /** @return T as a duration */
    public Duration timeout() {
        return Duration.ofSeconds(timeoutSeconds);
    }

    /**
     * The threshold a run of equal results must reach to change the probe's verdict (kubelet:
     * pkg/kubelet/prober/worker.go).
     *
     * @param result Success or Failure
     * @return the threshold that decides a verdict for {@code result} (FT for Failure, ST for Success)
     */
    public int thresholdFor(ProbeResult result) {
        return result == ProbeResult.SUCCESS ? successThreshold : failureThreshold;
    }

    /** @return a one-line description in kubelet terms */
    public String describe() {
        return handler.describe() + " delay=" + initialDelaySeconds + "s timeout=" + timeoutSeconds + "s period="
                + periodSeconds + "s #success=" + successThreshold + " #failure=" + failureThreshold;
    }

    /**
     * @param type the probe type, which decides the R9 and R10 rules
     * @return a builder with every field unset
     */
    public static Builder builder(ProbeType type) {
        return new Builder(type);
    }

    /** Raw probe values as written in a manifest or on the command line. Not thread-safe. */
    public static final class Builder {
        private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+\\-.^_`|~0-9A-Za-z]+");
        private static final Pattern PORT_NAME = Pattern.compile("[a-z0-9]([a-z0-9-]*[a-z0-9])?");
        private final ProbeType type;
        private final List<ProbeHandler> handlers = new ArrayList<>();
        private final List<Violation> parseProblems = new ArrayList<>();
        private String fieldPrefix;
        private long initialDelaySeconds;
        private long timeoutSeconds;
        private long periodSeconds;
        private long successThreshold;
        private long failureThreshold;
        private Long terminationGracePeriodSeconds;

        private Builder(ProbeType type) {
            this.type = Objects.requireNonNull(type, "type");
            this.fieldPrefix = type.fieldName();
        }

        /**
         * @param prefix field path used in messages, e.g. {@code containers[app].livenessProbe}
         * @return this builder
         */
        public Builder fieldPrefix(String prefix) {
            this.fieldPrefix = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /**
         * Adds a handler; a probe must end up with exactly one (R1).
         *
         * @param handler {@code exec}, {@code httpGet}, {@code tcpSocket} or {@code grpc}
         * @return this builder
         */
        public Builder handler(ProbeHandler handler) {
            handlers.add(Objects.requireNonNull(handler, "handler"));
            return this;
        }

        /**
         * @param seconds raw {@code initialDelaySeconds}, 0 = unset
         * @return this builder
         */
        public Builder initialDelaySeconds(long seconds) {
            this.initialDelaySeconds = seconds;
            return this;
        }

        /**
         * @param seconds raw {@code timeoutSeconds}, 0 = default 1
         * @return this builder
         */
        public Builder timeoutSeconds(long seconds) {
            this.timeoutSeconds = seconds;
            return this;
        }

        /**
         * @param seconds raw {@code periodSeconds}, 0 = default 10
         * @return this builder
         */
        public Builder periodSeconds(long seconds) {
            this.periodSeconds = seconds;
            return this;
        }

        /**
         * @param n raw {@code successThreshold}, 0 = default 1
         * @return this builder
         */
        public Builder successThreshold(long n) {
            this.successThreshold = n;
            return this;
        }

        /**
         * @param n raw {@code failureThreshold}, 0 = default 3
         * @return this builder
         */
        public Builder failureThreshold(long n) {
            this.failureThreshold = n;
            return this;
        }

        /**
         * @param seconds probe-level {@code terminationGracePeriodSeconds} (set = present)
         * @return this builder
         */
        public Builder terminationGracePeriodSeconds(long seconds) {
            this.terminationGracePeriodSeconds = seconds;
            return this;
        }

        /**
         * Records a problem found while reading the raw input (wrong type, unknown field).
         *
         * @param v the problem, with its field and rule
         * @return this builder
         */
        public Builder problem(Violation v) {
            parseProblems.add(Objects.requireNonNull(v, "v"));
            return this;
        }

        /** @return the probe type */
        public ProbeType type() {
            return type;
        }

        /**
         * Checks the API server's rules on the defaulted values: R1 (one handler), R8 (≥ 0),
         * R9 (successThreshold 1 for liveness/startup), R10 (probe grace), R11 (handlers).
         * Source: kubernetes pkg/apis/core/validation/validation.go (validateProbe, validateHandler).
         *
         * @return every violation, empty when the probe is valid
         */
        public List<Violation> validate() {
            List<Violation> out = new ArrayList<>(parseProblems);
            if (handlers.isEmpty()) {
                out.add(v("R1", "", "must specify a handler type (one of exec, httpGet, tcpSocket, grpc)",
                        "add exactly one handler, e.g. httpGet: {path: /livez, port: 8080}"));
            } else if (handlers.size() > 1) {
                out.add(v("R1", "", "may not specify more than 1 handler type",
                        "keep one of exec, httpGet, tcpSocket, grpc"));
            }
            nonNegative(out, "initialDelaySeconds", initialDelaySeconds);
            nonNegative(out, "timeoutSeconds", timeoutSeconds);
            nonNegative(out, "periodSeconds", periodSeconds);
            nonNegative(out, "successThreshold", successThreshold);
            nonNegative(out, "failureThreshold", failureThreshold);
            if (type != ProbeType.READINESS && successThreshold > 1) {
                out.add(v("R9", "successThreshold", "must be 1 for " + type.label() + " probes, was " + successThreshold,
                        "remove successThreshold or set it to 1"));
            }
            if (terminationGracePeriodSeconds != null) {
                if (type == ProbeType.READINESS) {
                    out.add(v("R10", "terminationGracePeriodSeconds", "must not be set for readiness probes",
                            "remove it; readiness never kills"));
                } else if (terminationGracePeriodSeconds <= 0) {
                    out.add(v("R10", "terminationGracePeriodSeconds",
                            "must be greater than 0, was " + terminationGracePeriodSeconds,
                            "remove it to use the pod's terminationGracePeriodSeconds, or set ≥ 1"));
                }
            }
            for (ProbeHandler h : handlers) {
                validateHandler(out, h);
            }
            return out;
        }

        private void validateHandler(List<Violation> out, ProbeHandler h) {
            h.match(g -> {
                validateHttpGet(out, g);
                return null;
            }, t -> {
                validatePort(out, "tcpSocket.port", t.port());
                return null;
            }, g -> {
                int p = g.port();
                if (p < 1 || p > 65535) {
                    out.add(v("R11", "grpc.port", "must be between 1 and 65535, inclusive, was " + p,
                            "use the numeric gRPC port (names are not allowed for grpc)"));
                }
                return null;
            }, e -> {
                if (e.command().isEmpty()) {
                    out.add(v("R11", "exec.command", "must not be empty", "give the command to run"));
                }
                return null;
            });
        }

        private void validateHttpGet(List<Violation> out, ProbeHandler.HttpGet g) {
            if (g.path().isEmpty()) {
                out.add(v("R11", "httpGet.path", "must not be empty", "use a path such as /livez"));
            }
            if (!g.scheme().equals("HTTP") && !g.scheme().equals("HTTPS")) {
                out.add(v("R11", "httpGet.scheme", "unsupported value \"" + g.scheme()
                        + "\": supported values: \"HTTP\", \"HTTPS\"", "use HTTP or HTTPS (upper case)"));
            }
            for (ProbeHandler.HttpHeader hd : g.headers()) {
                if (!TOKEN.matcher(hd.name()).matches()) {
                    out.add(v("R11", "httpGet.httpHeaders.name", "invalid HTTP header name '" + hd.name() + "'",
                            "use a valid HTTP token (letters, digits, - and a few symbols)"));
                }
            }
            validatePort(out, "httpGet.port", g.port());
        }

        private void validatePort(List<Violation> out, String field, ProbeHandler.PortRef port) {
            if (port.isNamed()) {
                String n = port.name().get();
                boolean ok = n.length() >= 1 && n.length() <= 15 && PORT_NAME.matcher(n).matches()
                        && !n.contains("--") && n.chars().anyMatch(Character::isLetter);
                if (!ok) {
                    out.add(v("R11", field, "invalid port name '" + n
                            + "': must be 1-15 lower-case letters, digits or '-', with at least one letter",
                            "use a container port's name or a number 1-65535"));
                }
            } else if (port.number() < 1 || port.number() > 65535) {
                out.add(v("R11", field, "must be between 1 and 65535, inclusive, was " + port.number(),
                        "use a port number 1-65535 or a container port's name"));
            }
        }

        private void nonNegative(List<Violation> out, String field, long value) {
            if (value < 0) {
                out.add(v("R8", field, "must be greater than or equal to 0, was " + value,
                        "use 0 (the default) or a positive value"));
            } else if (value > Integer.MAX_VALUE) {
                out.add(v("R8", field, "is too large: " + value, "use a value that fits in 32 bits"));
            }
        }

        private Violation v(String rule, String field, String msg, String fix) {
            return new Violation(rule, field.isEmpty() ? fieldPrefix : fieldPrefix + "." + field, msg, fix);
        }

        /**
         * Validates, then applies the defaults of R2.
         *
         * @return the probe
         * @throws InvalidInputException listing every violation when the probe is invalid
         */
        public ProbeSpec build() {
            List<Violation> problems = validate();
            if (!problems.isEmpty()) {
                StringBuilder sb = new StringBuilder("invalid " + fieldPrefix + ":");
                for (Violation p : problems) {
                    sb.append("\n  ").append(p);
                }
                throw new InvalidInputException(sb.toString(), problems);
            }
            return new ProbeSpec(type, handlers.get(0), (int) initialDelaySeconds, orDefault(timeoutSeconds, 1),
                    orDefault(periodSeconds, 10), orDefault(successThreshold, 1), orDefault(failureThreshold, 3),
                    terminationGracePeriodSeconds == null ? OptionalLong.empty()
                            : OptionalLong.of(terminationGracePeriodSeconds));
        }

        private static int orDefault(long v, int def) {
            return v == 0 ? def : (int) v;
        }

        /** @return the only handler when exactly one was given */
        public Optional<ProbeHandler> singleHandler() {
            return handlers.size() == 1 ? Optional.of(handlers.get(0)) : Optional.empty();
        }
    }
}
