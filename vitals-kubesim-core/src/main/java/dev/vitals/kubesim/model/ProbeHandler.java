package dev.vitals.kubesim.model;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The one handler of a probe (R1): {@link HttpGet}, {@link TcpSocket}, {@link Grpc} or {@link Exec}.
 * Values are immutable and mirror the Kubernetes API fields with defaults already applied.
 *
 * <p>Code that depends on the kind dispatches with {@link #match}, which takes one function per kind:
 * Java 17 has no pattern {@code switch}, and this is what makes the compiler check that every kind is
 * handled (a fifth kind adds a parameter, and every call site fails to compile until it handles it).
 */
public sealed interface ProbeHandler permits ProbeHandler.HttpGet, ProbeHandler.TcpSocket, ProbeHandler.Grpc,
        ProbeHandler.Exec {

    /** @return a short human description, e.g. {@code httpGet http://:8080/livez} */
    String describe();

    /**
     * The exhaustive dispatch on the handler's kind: applies the one function that fits.
     *
     * @param <R> the result type
     * @param httpGet applied to an {@code httpGet} handler
     * @param tcpSocket applied to a {@code tcpSocket} handler
     * @param grpc applied to a {@code grpc} handler
     * @param exec applied to an {@code exec} handler
     * @return what the applied function returned
     */
    <R> R match(Function<? super HttpGet, ? extends R> httpGet, Function<? super TcpSocket, ? extends R> tcpSocket,
            Function<? super Grpc, ? extends R> grpc, Function<? super Exec, ? extends R> exec);

    /** @return the handler's field as written in manifests: {@code httpGet}, {@code tcpSocket}, {@code grpc} or {@code exec} */
    default String field() {
        return match(g -> "httpGet", t -> "tcpSocket", g -> "grpc", e -> "exec");
    }

    /**
     * @return the port to resolve against the container's ports ({@link PortResolver}), for
     *         {@code httpGet} and {@code tcpSocket}; empty for {@code grpc} (numeric only, R64)
     *         and {@code exec}
     */
    default Optional<PortRef> portRef() {
        return match(g -> Optional.of(g.port()), t -> Optional.of(t.port()), g -> Optional.empty(), e -> Optional.empty());
    }

    /** @return this handler when it is an {@code httpGet}, else empty */
    default Optional<HttpGet> asHttpGet() {
        return match(Optional::of, t -> Optional.empty(), g -> Optional.empty(), e -> Optional.empty());
    }

    /** @return this handler when it is an {@code exec}, else empty */
    default Optional<Exec> asExec() {
        return match(g -> Optional.empty(), t -> Optional.empty(), g -> Optional.empty(), Optional::of);
    }

    /** @return the host a network handler names (empty: the pod IP); always empty for {@code grpc} and {@code exec} */
    default Optional<String> host() {
        return match(HttpGet::host, TcpSocket::host, g -> Optional.empty(), e -> Optional.empty());
    }

    /**
     * A port given by number (1–65535) or by the name of a container port (R11, R56).
     *
     * @param number the number, or 0 when the port is named
     * @param name the port name, or empty when the port is a number
     */
    record PortRef(int number, Optional<String> name) {
        /**
         * Validates the components.
         *
         * @param number the number, or 0 when the port is named
         * @param name the port name, or empty when the port is a number
         * @throws NullPointerException if a required component is null
         */
        public PortRef {
            Objects.requireNonNull(name, "name");
        }

        /**
         * A port given by number.
         *
         * @param number the port number, as written
         * @return a numeric port reference (not range-checked; validation does that)
         */
        public static PortRef of(int number) {
            return new PortRef(number, Optional.empty());
        }

        /**
         * A port given by name, resolved against {@code ports[].name} (R56).
         *
         * @param name the port's name, as written
         * @return a named port reference (not syntax-checked; validation does that)
         */
        public static PortRef named(String name) {
            return new PortRef(0, Optional.of(name));
        }

        /** @return true when the port is a name to resolve against the container's ports */
        public boolean isNamed() {
            return name.isPresent();
        }

        @Override
        public String toString() {
            return name.orElse(Integer.toString(number));
        }
    }

    /** One {@code httpHeaders} entry; the same name may repeat (R57). */
    record HttpHeader(String name, String value) {
        /**
         * Validates the components.
         *
         * @param name the header name, as written
         * @param value the header value, as written
         * @throws NullPointerException if a required component is null
         */
        public HttpHeader {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
        }
    }

    /**
     * {@code httpGet}: defaults {@code path "/"}, {@code scheme "HTTP"}; empty host means the pod IP (R3).
     *
     * @param host the host, or empty for the pod IP
     * @param port port number or name
     * @param path request path, may carry a query string
     * @param scheme {@code HTTP} or {@code HTTPS}
     * @param headers extra headers in order
     */
    record HttpGet(Optional<String> host, PortRef port, String path, String scheme, List<HttpHeader> headers)
            implements ProbeHandler {
        /**
         * Validates the components and copies the collections (unmodifiable).
         *
         * @param host the host, or empty for the pod IP
         * @param port port number or name
         * @param path request path, may carry a query string
         * @param scheme {@code HTTP} or {@code HTTPS}
         * @param headers extra headers in order
         * @throws NullPointerException if a required component is null
         */
        public HttpGet {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(port, "port");
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(scheme, "scheme");
            headers = List.copyOf(headers);
        }

        @Override
        public <R> R match(Function<? super HttpGet, ? extends R> httpGet, Function<? super TcpSocket, ? extends R> tcpSocket,
                Function<? super Grpc, ? extends R> grpc, Function<? super Exec, ? extends R> exec) {
            return httpGet.apply(this);
        }

        @Override
        public String describe() {
            return "httpGet " + scheme.toLowerCase(java.util.Locale.ROOT) + "://" + host.orElse("") + ":" + port + path;
        }
    }

    /** {@code tcpSocket}: empty host means the pod IP (R4). */
    record TcpSocket(Optional<String> host, PortRef port) implements ProbeHandler {
        /**
         * Validates the components.
         *
         * @param host the host, or empty for the pod IP
         * @param port port number or name
         * @throws NullPointerException if a required component is null
         */
        public TcpSocket {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(port, "port");
        }

        @Override
        public <R> R match(Function<? super HttpGet, ? extends R> httpGet, Function<? super TcpSocket, ? extends R> tcpSocket,
                Function<? super Grpc, ? extends R> grpc, Function<? super Exec, ? extends R> exec) {
            return tcpSocket.apply(this);
        }

        @Override
        public String describe() {
            return "tcpSocket " + host.orElse("") + ":" + port;
        }
    }

    /** {@code grpc}: numeric port only, always the pod IP; service defaults to "" (R5, R64). */
    record Grpc(int port, String service) implements ProbeHandler {
        /**
         * Validates the components.
         *
         * @param port port number (kubelet: gRPC probes take no named port)
         * @param service the service name sent in the health check request, "" by default
         * @throws NullPointerException if a required component is null
         */
        public Grpc {
            Objects.requireNonNull(service, "service");
        }

        @Override
        public <R> R match(Function<? super HttpGet, ? extends R> httpGet, Function<? super TcpSocket, ? extends R> tcpSocket,
                Function<? super Grpc, ? extends R> grpc, Function<? super Exec, ? extends R> exec) {
            return grpc.apply(this);
        }

        @Override
        public String describe() {
            return "grpc :" + port + (service.isEmpty() ? "" : " service=" + service);
        }
    }

    /** {@code exec}: the command runs as a local process here (R68). */
    record Exec(List<String> command) implements ProbeHandler {
        /**
         * Copies the collections (unmodifiable).
         *
         * @param command the command and its arguments, run in the container without a shell
         */
        public Exec {
            command = List.copyOf(command);
        }

        @Override
        public <R> R match(Function<? super HttpGet, ? extends R> httpGet, Function<? super TcpSocket, ? extends R> tcpSocket,
                Function<? super Grpc, ? extends R> grpc, Function<? super Exec, ? extends R> exec) {
            return exec.apply(this);
        }

        @Override
        public String describe() {
            return "exec " + String.join(" ", command);
        }
    }
}
