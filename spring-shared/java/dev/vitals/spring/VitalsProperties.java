package dev.vitals.spring;

import dev.vitals.Mode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code vitals.*} properties. JavaBean style because Spring Boot binds and documents them
 * that way (the configuration processor turns the field comments into IDE help); the values
 * are turned into immutable Vitals {@link dev.vitals.Check} registrations at start-up.
 */
@ConfigurationProperties("vitals")
public class VitalsProperties {
    /** Whether Vitals is auto-configured at all. */
    private boolean enabled = true;

    /**
     * Whether every Spring HealthIndicator, ReactiveHealthIndicator and composite contributor
     * bean is adopted as a Vitals check.
     */
    private boolean adoptIndicators = true;

    /** Spring contributor names (as shown by /actuator/health, e.g. "db" or "db/primary") not to adopt. */
    private List<String> exclude = new ArrayList<>();

    /**
     * Custom Vitals group holding every adopted indicator that Spring's /actuator/health shows
     * (its primary group), so that Vitals can report the same set.
     */
    private String healthGroup = "health";

    /**
     * Whether checks run on virtual threads when the JVM has them (Java 21+); default false:
     * platform threads created on demand, so a check that spins or pins cannot take the
     * application's carrier threads (issue 19, DESIGN.md section 5).
     */
    private boolean virtualThreads;

    /** Settings applied to every adopted indicator unless overridden under vitals.checks. */
    private CheckSettings defaults = new CheckSettings();

    /**
     * Per-check overrides, keyed by the Spring contributor name or the Vitals check name
     * (composite children: "db/primary" in Spring, "db.primary" in Vitals; use brackets for
     * keys with dots or slashes: vitals.checks[db/primary].timeout=500ms).
     */
    private Map<String, CheckSettings> checks = new LinkedHashMap<>();

    /** Availability state mapping between Spring and Vitals. */
    private final Availability availability = new Availability();

    /** Shutdown behaviour. */
    private final Shutdown shutdown = new Shutdown();

    /** Micrometer meters. */
    private final Metrics metrics = new Metrics();


    /** Vitals' probe server: its own port, listener and threads, independent of the web server. */
    private final Server server = new Server();

    /** The embedded web server's worker pool as a saturation and progress source. */
    private final WebServer webServer = new WebServer();

    /** JVM pause detector. */
    private final PauseDetector pauseDetector = new PauseDetector();

    /** Spring Boot Actuator's own health endpoint. */
    private final Actuator actuator = new Actuator();

    /** Warm-up readiness ({@code vitals.warmup.*}): readiness DOWN until the application has warmed. */
    private final Warmup warmup = new Warmup();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public boolean isAdoptIndicators() {
        return adoptIndicators;
    }

    public void setAdoptIndicators(boolean adoptIndicators) {
        this.adoptIndicators = adoptIndicators;
    }

    public List<String> getExclude() {
        return exclude;
    }

    public void setExclude(List<String> exclude) {
        this.exclude = exclude;
    }

    public String getHealthGroup() {
        return healthGroup;
    }

    public void setHealthGroup(String healthGroup) {
        this.healthGroup = healthGroup;
    }

    public boolean isVirtualThreads() {
        return virtualThreads;
    }

    public void setVirtualThreads(boolean virtualThreads) {
        this.virtualThreads = virtualThreads;
    }

    public CheckSettings getDefaults() {
        return defaults;
    }

    public void setDefaults(CheckSettings defaults) {
        this.defaults = defaults;
    }

    public Map<String, CheckSettings> getChecks() {
        return checks;
    }

    public void setChecks(Map<String, CheckSettings> checks) {
        this.checks = checks;
    }

    public Availability getAvailability() {
        return availability;
    }

    public Shutdown getShutdown() {
        return shutdown;
    }

    public Metrics getMetrics() {
        return metrics;
    }


    public Server getServer() {
        return server;
    }

    public WebServer getWebServer() {
        return webServer;
    }

    public PauseDetector getPauseDetector() {
        return pauseDetector;
    }

    public Warmup getWarmup() {
        return warmup;
    }

    public Actuator getActuator() {
        return actuator;
    }

    /** Spring Boot Actuator's own health endpoint (/actuator/health and its groups and components). */
    public static class Actuator {
        /**
         * Whether /actuator/health answers from Vitals: every adopted indicator keeps its Spring
         * name and JSON shape, but is evaluated under its Vitals timeout, concurrently with the
         * others and single flight (scheduled checks answer from their latest result). Off by
         * default: the endpoint calls the indicators itself, one after another, unbounded.
         */
        private boolean serveThroughVitals = false;

        public boolean isServeThroughVitals() {
            return serveThroughVitals;
        }

        public void setServeThroughVitals(boolean serveThroughVitals) {
            this.serveThroughVitals = serveThroughVitals;
        }
    }

    /** The embedded web server's worker pool (Tomcat or Jetty). */
    public static class WebServer {
        /**
         * Whether the web server's worker pool is watched: check tomcat-saturation (or
         * jetty-saturation) in readiness (DEGRADED at 90% busy) and check tomcat-progress (or
         * jetty-progress) in liveness (DOWN when requests wait and none completes for
         * stall-after), with pool meters when Micrometer is present.
         */
        private boolean enabled = true;

        /** How long the pool may have work and complete nothing before liveness fails. */
        private Duration stallAfter = Duration.ofSeconds(60);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getStallAfter() {
            return stallAfter;
        }

        public void setStallAfter(Duration stallAfter) {
            this.stallAfter = stallAfter;
        }
    }

    /**
     * Warm-up readiness ({@link dev.vitals.Warmup}): a readiness check {@code warmup} that stays DOWN
     * from start until a {@link VitalsWarmupRoutine} bean has run (started when the application is
     * ready) and/or {@code requests} requests reported to the {@code Warmup} bean completed within
     * {@code normal-latency}; after {@code max-wait} it reads DEGRADED (ready) whatever is missing.
     */
    public static class Warmup {
        /** Whether the warm-up check is registered (off by default). */
        private boolean enabled = false;
        /** Requests that must complete within normal-latency (0: not a condition). */
        private int requests = 0;
        /** The normal latency of those requests. */
        private Duration normalLatency = Duration.ofMillis(100);
        /** Readiness waits for warm-up at most this long from the application's start. */
        private Duration maxWait = Duration.ofSeconds(60);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getRequests() {
            return requests;
        }

        public void setRequests(int requests) {
            this.requests = requests;
        }

        public Duration getNormalLatency() {
            return normalLatency;
        }

        public void setNormalLatency(Duration normalLatency) {
            this.normalLatency = normalLatency;
        }

        public Duration getMaxWait() {
            return maxWait;
        }

        public void setMaxWait(Duration maxWait) {
            this.maxWait = maxWait;
        }
    }

    /** JVM pause detector (a hiccup meter: one thread that sleeps and measures how late it wakes). */
    public static class PauseDetector {
        /** Whether the pause detector runs and its figures go to Micrometer (off by default). */
        private boolean enabled = false;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** Who sees check details, messages and error types in probe answers. */
    public enum Details {
        /** Nobody (default): status and check names only. */
        NEVER,
        /** Requests carrying "Authorization: Bearer" with vitals.server.token. */
        WHEN_AUTHORIZED,
        /** Everybody; the probe port is reachable by every pod in the cluster. */
        ALWAYS
    }

    /** The probe server (/livez, /readyz, /startupz, /health). */
    public static class Server {
        /** Whether the probe server starts. */
        private boolean enabled = true;

        /** Port of the probe server; 0 picks a free port. */
        private int port = 8081;

        /** Local address to listen on; all interfaces when unset (kubelet probes the pod IP). */
        private java.net.InetAddress address;

        /** Prefix of every probe route, such as /probes; none when empty. */
        private String basePath = "";

        /** Who sees check details in probe answers. */
        private Details details = Details.NEVER;

        /** Bearer token that unlocks details when details=when-authorized. */
        private String token;

        /** Event-loop threads of the probe server (default 1). */
        private Integer eventLoopThreads;

        /** Connections open at once; a connection over the limit is closed at once (default 1024). */
        private Integer maxConnections;

        /** Time a request may take to arrive completely (default 5s). */
        private Duration readTimeout;

        /** Time a kept-alive connection may sit without a request (default 60s). */
        private Duration idleTimeout;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getPort() {
            return port;
        }

        public void setPort(int port) {
            this.port = port;
        }

        public java.net.InetAddress getAddress() {
            return address;
        }

        public void setAddress(java.net.InetAddress address) {
            this.address = address;
        }

        public String getBasePath() {
            return basePath;
        }

        public void setBasePath(String basePath) {
            this.basePath = basePath;
        }

        public Details getDetails() {
            return details;
        }

        public void setDetails(Details details) {
            this.details = details;
        }

        public String getToken() {
            return token;
        }

        public void setToken(String token) {
            this.token = token;
        }

        public Integer getEventLoopThreads() {
            return eventLoopThreads;
        }

        public void setEventLoopThreads(Integer eventLoopThreads) {
            this.eventLoopThreads = eventLoopThreads;
        }

        public Integer getMaxConnections() {
            return maxConnections;
        }

        public void setMaxConnections(Integer maxConnections) {
            this.maxConnections = maxConnections;
        }

        public Duration getReadTimeout() {
            return readTimeout;
        }

        public void setReadTimeout(Duration readTimeout) {
            this.readTimeout = readTimeout;
        }

        public Duration getIdleTimeout() {
            return idleTimeout;
        }

        public void setIdleTimeout(Duration idleTimeout) {
            this.idleTimeout = idleTimeout;
        }
    }

    /**
     * How one adopted indicator is evaluated. Unset values fall back to {@code vitals.defaults},
     * then to Vitals' defaults (scheduled, interval 10s, timeout 2s, max-age 3 x interval,
     * ttl 1s, thresholds 1, critical).
     */
    public static class CheckSettings {
        /** Evaluation mode: scheduled (default) or on-demand (runs when a probe or a person asks, never on a timer). */
        private Mode mode;

        /** Time between two scheduled runs (default 10s). */
        private Duration interval;

        /** Longest time one execution may take before it reports DOWN "timed out" (default 2s). */
        private Duration timeout;

        /** Age after which a scheduled result reads UNKNOWN "stale" (default 3 x interval). */
        private Duration maxAge;

        /** How long an on-demand result is reused (default 1s). */
        private Duration ttl;

        /** Consecutive failed results needed to flip to DOWN (default 1). */
        private Integer failureThreshold;

        /** Consecutive passed results needed to flip back to UP (default 1). */
        private Integer successThreshold;

        /** Whether a failure makes its group DOWN (true) or only DEGRADED (false); default true. */
        private Boolean critical;

        /**
         * Vitals groups of the check, replacing those derived from Spring's
         * management.endpoint.health.group.* membership (liveness, readiness, startup or a custom group).
         */
        private List<String> groups;

        public Mode getMode() {
            return mode;
        }

        public void setMode(Mode mode) {
            this.mode = mode;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public Duration getMaxAge() {
            return maxAge;
        }

        public void setMaxAge(Duration maxAge) {
            this.maxAge = maxAge;
        }

        public Duration getTtl() {
            return ttl;
        }

        public void setTtl(Duration ttl) {
            this.ttl = ttl;
        }

        public Integer getFailureThreshold() {
            return failureThreshold;
        }

        public void setFailureThreshold(Integer failureThreshold) {
            this.failureThreshold = failureThreshold;
        }

        public Integer getSuccessThreshold() {
            return successThreshold;
        }

        public void setSuccessThreshold(Integer successThreshold) {
            this.successThreshold = successThreshold;
        }

        public Boolean getCritical() {
            return critical;
        }

        public void setCritical(Boolean critical) {
            this.critical = critical;
        }

        public List<String> getGroups() {
            return groups;
        }

        public void setGroups(List<String> groups) {
            this.groups = groups;
        }
    }

    /** Availability state mapping (Spring's LivenessState / ReadinessState and Vitals' availability). */
    public static class Availability {
        /**
         * Whether Spring's availability events drive Vitals' availability state and Vitals'
         * liveness/readiness status is published back as Spring availability events.
         */
        private boolean mapSpringStates = true;

        /**
         * How often Vitals' liveness/readiness status is compared with Spring's (from memory,
         * never running a check) and published on change. On-demand checks count with results
         * someone asked for (a probe, Actuator): nothing evaluates them on this timer.
         */
        private Duration publishInterval = Duration.ofMillis(500);

        public boolean isMapSpringStates() {
            return mapSpringStates;
        }

        public void setMapSpringStates(boolean mapSpringStates) {
            this.mapSpringStates = mapSpringStates;
        }

        public Duration getPublishInterval() {
            return publishInterval;
        }

        public void setPublishInterval(Duration publishInterval) {
            this.publishInterval = publishInterval;
        }
    }

    /** Shutdown behaviour. */
    public static class Shutdown {
        /**
         * On context close, readiness reports DOWN "draining" (liveness unchanged, probe server
         * still answering) for this long before the context goes on closing. Give Kubernetes
         * time to take the pod out of its endpoints: a few seconds in production.
         */
        private Duration drainDelay = Duration.ZERO;

        public Duration getDrainDelay() {
            return drainDelay;
        }

        public void setDrainDelay(Duration drainDelay) {
            this.drainDelay = drainDelay;
        }
    }

    /** Micrometer meters. */
    public static class Metrics {
        /** Whether Vitals' meters are bound when Micrometer is on the class path. */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }
}
