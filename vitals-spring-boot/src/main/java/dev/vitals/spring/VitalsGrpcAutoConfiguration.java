package dev.vitals.spring;

import dev.vitals.HealthRegistry;
import dev.vitals.grpc.GrpcHealthServer;
import java.net.InetAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The gRPC health server ({@code grpc.health.v1.Health}, vitals-grpc) over the Vitals registry,
 * when {@code vitals-grpc} is on the class path and {@code vitals.grpc.port} is set (0 picks a
 * free port). Its own port and event loop, never the application's gRPC server, interceptors or
 * executor (DESIGN.md P1, section 6b).
 *
 * <pre>
 * vitals.grpc.port=8082
 * vitals.grpc.address=0.0.0.0               # default: all interfaces
 * vitals.grpc.server-group=readiness        # what service "" means (default readiness)
 * vitals.grpc.services.shop.Orders=readiness
 * vitals.grpc.max-watch-streams=100
 * vitals.grpc.max-calls-per-connection=32
 * vitals.grpc.max-inbound-message-size=1024
 * vitals.grpc.max-connection-idle=60s
 * vitals.grpc.max-connection-age=5m
 * </pre>
 *
 * <p>Started as soon as the registry exists; stopped when the context is destroyed, after the
 * drain that starts on context close (readiness and {@code ""} turn {@code NOT_SERVING} first,
 * and open Watch streams see it; liveness keeps serving until the server stops). Backs off when
 * the application defines its own {@link GrpcHealthServer} bean.
 */
@AutoConfiguration(after = VitalsAutoConfiguration.class)
@ConditionalOnClass(name = "dev.vitals.grpc.GrpcHealthServer")
@ConditionalOnBooleanProperty(name = "vitals.enabled", matchIfMissing = true)
@ConditionalOnProperty(name = "vitals.grpc.port")
@ConditionalOnBean(HealthRegistry.class)
@EnableConfigurationProperties(VitalsGrpcAutoConfiguration.GrpcProperties.class)
public final class VitalsGrpcAutoConfiguration {

    VitalsGrpcAutoConfiguration() {
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    GrpcHealthServer vitalsGrpcHealthServer(HealthRegistry registry, GrpcProperties p) {
        if (p.getPort() == null) {
            throw new IllegalArgumentException("vitals.grpc.port must be set (0 picks a free port)");
        }
        try {
            return configure(GrpcHealthServer.builder(registry), p).build().start();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("vitals.grpc: " + e.getMessage(), e);
        }
    }

    private static GrpcHealthServer.Builder configure(GrpcHealthServer.Builder b, GrpcProperties p) {
        b.port(p.getPort());
        if (p.getAddress() != null) {
            b.bindAddress(p.getAddress());
        }
        if (p.getServerGroup() != null) {
            b.serverGroup(p.getServerGroup());
        }
        p.getServices().forEach(b::service);
        if (p.getMaxWatchStreams() != null) {
            b.maxWatchStreams(p.getMaxWatchStreams());
        }
        if (p.getMaxCallsPerConnection() != null) {
            b.maxCallsPerConnection(p.getMaxCallsPerConnection());
        }
        if (p.getMaxInboundMessageSize() != null) {
            b.maxInboundMessageSize(p.getMaxInboundMessageSize());
        }
        if (p.getMaxConnectionIdle() != null) {
            b.maxConnectionIdle(p.getMaxConnectionIdle());
        }
        if (p.getMaxConnectionAge() != null) {
            b.maxConnectionAge(p.getMaxConnectionAge());
        }
        if (p.getEventLoopThreads() != null) {
            b.eventLoopThreads(p.getEventLoopThreads());
        }
        if (p.getMaxConnections() != null) {
            b.maxConnections(p.getMaxConnections());
        }
        if (p.getMaxConnectionsPerAddress() != null) {
            b.maxConnectionsPerAddress(p.getMaxConnectionsPerAddress());
        }
        return b;
    }

    /** {@code vitals.grpc.*}; unset values keep {@link GrpcHealthServer.Builder}'s defaults. */
    @ConfigurationProperties("vitals.grpc")
    public static class GrpcProperties {
        private Integer port;
        private InetAddress address;
        private String serverGroup;
        private Map<String, String> services = new LinkedHashMap<>();
        private Integer maxWatchStreams;
        private Integer maxCallsPerConnection;
        private Integer maxInboundMessageSize;
        private Duration maxConnectionIdle;
        private Duration maxConnectionAge;
        private Integer eventLoopThreads;
        private Integer maxConnections;
        private Integer maxConnectionsPerAddress;

        /** @return connections open at once, 1–1000000; at the limit the longest-idle one is closed for a new one; default 1024 */
        public Integer getMaxConnections() {
            return maxConnections;
        }

        /**
         * Sets {@code vitals.grpc.max-connections} (see {@link #getMaxConnections()}); Spring Boot calls it when binding.
         *
         * @param maxConnections the new value, or null for the default
         */
        public void setMaxConnections(Integer maxConnections) {
            this.maxConnections = maxConnections;
        }

        /** @return connections one peer address may hold, 1–maxConnections; default a quarter of maxConnections */
        public Integer getMaxConnectionsPerAddress() {
            return maxConnectionsPerAddress;
        }

        /**
         * Sets {@code vitals.grpc.max-connections-per-address} (see {@link #getMaxConnectionsPerAddress()}); Spring Boot calls it when binding.
         *
         * @param maxConnectionsPerAddress the new value, or null for the default
         */
        public void setMaxConnectionsPerAddress(Integer maxConnectionsPerAddress) {
            this.maxConnectionsPerAddress = maxConnectionsPerAddress;
        }

        /** @return the port, 0–65535 (0 picks a free one); setting it turns the server on */
        public Integer getPort() {
            return port;
        }

        /**
         * Sets {@code vitals.grpc.port} (see {@link #getPort()}); Spring Boot calls it when binding.
         *
         * @param port the new value, or null for the default
         */
        public void setPort(Integer port) {
            this.port = port;
        }

        /** @return the interface to listen on; default all interfaces */
        public InetAddress getAddress() {
            return address;
        }

        /**
         * Sets {@code vitals.grpc.address} (see {@link #getAddress()}); Spring Boot calls it when binding.
         *
         * @param address the new value, or null for the default
         */
        public void setAddress(InetAddress address) {
            this.address = address;
        }

        /** @return the group that answers service {@code ""}; default readiness */
        public String getServerGroup() {
            return serverGroup;
        }

        /**
         * Sets {@code vitals.grpc.server-group} (see {@link #getServerGroup()}); Spring Boot calls it when binding.
         *
         * @param serverGroup the new value, or null for the default
         */
        public void setServerGroup(String serverGroup) {
            this.serverGroup = serverGroup;
        }

        /** @return extra service names and the group each maps to */
        public Map<String, String> getServices() {
            return services;
        }

        /**
         * Sets {@code vitals.grpc.services} (see {@link #getServices()}); Spring Boot calls it when binding.
         *
         * @param services the new value
         */
        public void setServices(Map<String, String> services) {
            this.services = services;
        }

        /** @return concurrent Watch streams, 1–100000; default 100 */
        public Integer getMaxWatchStreams() {
            return maxWatchStreams;
        }

        /**
         * Sets {@code vitals.grpc.max-watch-streams} (see {@link #getMaxWatchStreams()}); Spring Boot calls it when binding.
         *
         * @param maxWatchStreams the new value, or null for the default
         */
        public void setMaxWatchStreams(Integer maxWatchStreams) {
            this.maxWatchStreams = maxWatchStreams;
        }

        /** @return concurrent calls per connection, 1–1000; default 32 */
        public Integer getMaxCallsPerConnection() {
            return maxCallsPerConnection;
        }

        /**
         * Sets {@code vitals.grpc.max-calls-per-connection} (see {@link #getMaxCallsPerConnection()}); Spring Boot calls it when binding.
         *
         * @param maxCallsPerConnection the new value, or null for the default
         */
        public void setMaxCallsPerConnection(Integer maxCallsPerConnection) {
            this.maxCallsPerConnection = maxCallsPerConnection;
        }

        /** @return largest request message in bytes, 64–1048576; default 1024 */
        public Integer getMaxInboundMessageSize() {
            return maxInboundMessageSize;
        }

        /**
         * Sets {@code vitals.grpc.max-inbound-message-size} (see {@link #getMaxInboundMessageSize()}); Spring Boot calls it when binding.
         *
         * @param maxInboundMessageSize the new value, or null for the default
         */
        public void setMaxInboundMessageSize(Integer maxInboundMessageSize) {
            this.maxInboundMessageSize = maxInboundMessageSize;
        }

        /** @return idle time after which a connection is closed, 1 s–1 h; default 60 s */
        public Duration getMaxConnectionIdle() {
            return maxConnectionIdle;
        }

        /**
         * Sets {@code vitals.grpc.max-connection-idle} (see {@link #getMaxConnectionIdle()}); Spring Boot calls it when binding.
         *
         * @param maxConnectionIdle the new value, or null for the default
         */
        public void setMaxConnectionIdle(Duration maxConnectionIdle) {
            this.maxConnectionIdle = maxConnectionIdle;
        }

        /** @return age after which a connection is told to go away, 1 s–24 h; default 5 min */
        public Duration getMaxConnectionAge() {
            return maxConnectionAge;
        }

        /**
         * Sets {@code vitals.grpc.max-connection-age} (see {@link #getMaxConnectionAge()}); Spring Boot calls it when binding.
         *
         * @param maxConnectionAge the new value, or null for the default
         */
        public void setMaxConnectionAge(Duration maxConnectionAge) {
            this.maxConnectionAge = maxConnectionAge;
        }

        /** @return event-loop threads, 1–16; default 1 on ≤ 2 cores, else 2 */
        public Integer getEventLoopThreads() {
            return eventLoopThreads;
        }

        /**
         * Sets {@code vitals.grpc.event-loop-threads} (see {@link #getEventLoopThreads()}); Spring Boot calls it when binding.
         *
         * @param eventLoopThreads the new value, or null for the default
         */
        public void setEventLoopThreads(Integer eventLoopThreads) {
            this.eventLoopThreads = eventLoopThreads;
        }
    }
}
