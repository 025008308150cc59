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
 * are turned into immutable Vitals {@link dev.vitals.Check} registrations at start-up. Not
 * thread-safe: Spring Boot binds it once while the context starts, and Vitals reads it after that.
 * Each accessor names its property ({@code vitals.server.port}); durations are
 * {@link java.time.Duration}s ({@code 500ms}, {@code 10s} in a properties file).
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

    /**
     * {@code vitals.enabled}: Whether Vitals is auto-configured at all.
     *
     * @return the bound value
     */
    public boolean isEnabled() {
        return enabled;
    }

    /**
     * Sets {@code vitals.enabled}; Spring Boot calls it when binding the properties.
     *
     * @param enabled the new value
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * {@code vitals.adopt-indicators}: Whether every Spring HealthIndicator, ReactiveHealthIndicator and
     * composite contributor bean is adopted as a Vitals check.
     *
     * @return the bound value
     */
    public boolean isAdoptIndicators() {
        return adoptIndicators;
    }

    /**
     * Sets {@code vitals.adopt-indicators}; Spring Boot calls it when binding the properties.
     *
     * @param adoptIndicators the new value
     */
    public void setAdoptIndicators(boolean adoptIndicators) {
        this.adoptIndicators = adoptIndicators;
    }

    /**
     * {@code vitals.exclude}: Spring contributor names (as shown by /actuator/health, e.g. "db" or
     * "db/primary") not to adopt.
     *
     * @return the bound value
     */
    public List<String> getExclude() {
        return exclude;
    }

    /**
     * Sets {@code vitals.exclude}; Spring Boot calls it when binding the properties.
     *
     * @param exclude the new value
     */
    public void setExclude(List<String> exclude) {
        this.exclude = exclude;
    }

    /**
     * {@code vitals.health-group}: Custom Vitals group holding every adopted indicator that Spring's
     * /actuator/health shows (its primary group), so that Vitals can report the same set.
     *
     * @return the bound value
     */
    public String getHealthGroup() {
        return healthGroup;
    }

    /**
     * Sets {@code vitals.health-group}; Spring Boot calls it when binding the properties.
     *
     * @param healthGroup the new value
     */
    public void setHealthGroup(String healthGroup) {
        this.healthGroup = healthGroup;
    }

    /**
     * {@code vitals.virtual-threads}: Whether checks run on virtual threads when the JVM has them (Java 21+);
     * default false: platform threads created on demand, so a check that spins or pins cannot take the
     * application's carrier threads (issue 19, DESIGN.md section 5).
     *
     * @return the bound value
     */
    public boolean isVirtualThreads() {
        return virtualThreads;
    }

    /**
     * Sets {@code vitals.virtual-threads}; Spring Boot calls it when binding the properties.
     *
     * @param virtualThreads the new value
     */
    public void setVirtualThreads(boolean virtualThreads) {
        this.virtualThreads = virtualThreads;
    }

    /**
     * {@code vitals.defaults}: Settings applied to every adopted indicator unless overridden under
     * vitals.checks.
     *
     * @return the bound value
     */
    public CheckSettings getDefaults() {
        return defaults;
    }

    /**
     * Sets {@code vitals.defaults}; Spring Boot calls it when binding the properties.
     *
     * @param defaults the new value
     */
    public void setDefaults(CheckSettings defaults) {
        this.defaults = defaults;
    }

    /**
     * {@code vitals.checks}: Per-check overrides, keyed by the Spring contributor name or the Vitals check
     * name (composite children: "db/primary" in Spring, "db.primary" in Vitals; use brackets for keys with
     * dots or slashes: vitals.checks[db/primary].timeout=500ms).
     *
     * @return the bound value
     */
    public Map<String, CheckSettings> getChecks() {
        return checks;
    }

    /**
     * Sets {@code vitals.checks}; Spring Boot calls it when binding the properties.
     *
     * @param checks the new value
     */
    public void setChecks(Map<String, CheckSettings> checks) {
        this.checks = checks;
    }

    /**
     * {@code vitals.availability}: Availability state mapping between Spring and Vitals.
     *
     * @return the bound value
     */
    public Availability getAvailability() {
        return availability;
    }

    /**
     * {@code vitals.shutdown}: Shutdown behaviour.
     *
     * @return the bound value
     */
    public Shutdown getShutdown() {
        return shutdown;
    }

    /**
     * {@code vitals.metrics}: Micrometer meters.
     *
     * @return the bound value
     */
    public Metrics getMetrics() {
        return metrics;
    }


    /**
     * {@code vitals.server}: Vitals' probe server: its own port, listener and threads, independent of the web
     * server.
     *
     * @return the bound value
     */
    public Server getServer() {
        return server;
    }

    /**
     * {@code vitals.web-server}: The embedded web server's worker pool as a saturation and progress source.
     *
     * @return the bound value
     */
    public WebServer getWebServer() {
        return webServer;
    }

    /**
     * {@code vitals.pause-detector}: JVM pause detector.
     *
     * @return the bound value
     */
    public PauseDetector getPauseDetector() {
        return pauseDetector;
    }

    /**
     * {@code vitals.warmup}: Warm-up readiness ({@code vitals.warmup.*}): readiness DOWN until the
     * application has warmed.
     *
     * @return the bound value
     */
    public Warmup getWarmup() {
        return warmup;
    }

    /**
     * {@code vitals.actuator}: Spring Boot Actuator's own health endpoint.
     *
     * @return the bound value
     */
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

        /**
         * {@code vitals.actuator.serve-through-vitals}: Whether /actuator/health answers from Vitals: every
         * adopted indicator keeps its Spring name and JSON shape, but is evaluated under its Vitals timeout,
         * concurrently with the others and single flight (scheduled checks answer from their latest result).
         * Off by default: the endpoint calls the indicators itself, one after another, unbounded.
         *
         * @return the bound value
         */
        public boolean isServeThroughVitals() {
            return serveThroughVitals;
        }

        /**
         * Sets {@code vitals.actuator.serve-through-vitals}; Spring Boot calls it when binding the
         * properties.
         *
         * @param serveThroughVitals the new value
         */
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

        /**
         * {@code vitals.web-server.enabled}: Whether the web server's worker pool is watched: check
         * tomcat-saturation (or jetty-saturation) in readiness (DEGRADED at 90% busy) and check
         * tomcat-progress (or jetty-progress) in liveness (DOWN when requests wait and none completes for
         * stall-after), with pool meters when Micrometer is present.
         *
         * @return the bound value
         */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets {@code vitals.web-server.enabled}; Spring Boot calls it when binding the properties.
         *
         * @param enabled the new value
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /**
         * {@code vitals.web-server.stall-after}: How long the pool may have work and complete nothing before
         * liveness fails.
         *
         * @return the bound value
         */
        public Duration getStallAfter() {
            return stallAfter;
        }

        /**
         * Sets {@code vitals.web-server.stall-after}; Spring Boot calls it when binding the properties.
         *
         * @param stallAfter the new value
         */
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

        /**
         * {@code vitals.warmup.enabled}: Whether the warm-up check is registered (off by default).
         *
         * @return the bound value
         */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets {@code vitals.warmup.enabled}; Spring Boot calls it when binding the properties.
         *
         * @param enabled the new value
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /**
         * {@code vitals.warmup.requests}: Requests that must complete within normal-latency (0: not a
         * condition).
         *
         * @return the bound value
         */
        public int getRequests() {
            return requests;
        }

        /**
         * Sets {@code vitals.warmup.requests}; Spring Boot calls it when binding the properties.
         *
         * @param requests the new value
         */
        public void setRequests(int requests) {
            this.requests = requests;
        }

        /**
         * {@code vitals.warmup.normal-latency}: The normal latency of those requests.
         *
         * @return the bound value
         */
        public Duration getNormalLatency() {
            return normalLatency;
        }

        /**
         * Sets {@code vitals.warmup.normal-latency}; Spring Boot calls it when binding the properties.
         *
         * @param normalLatency the new value
         */
        public void setNormalLatency(Duration normalLatency) {
            this.normalLatency = normalLatency;
        }

        /**
         * {@code vitals.warmup.max-wait}: Readiness waits for warm-up at most this long from the
         * application's start.
         *
         * @return the bound value
         */
        public Duration getMaxWait() {
            return maxWait;
        }

        /**
         * Sets {@code vitals.warmup.max-wait}; Spring Boot calls it when binding the properties.
         *
         * @param maxWait the new value
         */
        public void setMaxWait(Duration maxWait) {
            this.maxWait = maxWait;
        }
    }

    /** JVM pause detector (a hiccup meter: one thread that sleeps and measures how late it wakes). */
    public static class PauseDetector {
        /** Whether the pause detector runs and its figures go to Micrometer (off by default). */
        private boolean enabled = false;

        /**
         * {@code vitals.pause-detector.enabled}: Whether the pause detector runs and its figures go to
         * Micrometer (off by default).
         *
         * @return the bound value
         */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets {@code vitals.pause-detector.enabled}; Spring Boot calls it when binding the properties.
         *
         * @param enabled the new value
         */
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

        /**
         * {@code vitals.server.enabled}: Whether the probe server starts.
         *
         * @return the bound value
         */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets {@code vitals.server.enabled}; Spring Boot calls it when binding the properties.
         *
         * @param enabled the new value
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /**
         * {@code vitals.server.port}: Port of the probe server; 0 picks a free port.
         *
         * @return the bound value
         */
        public int getPort() {
            return port;
        }

        /**
         * Sets {@code vitals.server.port}; Spring Boot calls it when binding the properties.
         *
         * @param port the new value
         */
        public void setPort(int port) {
            this.port = port;
        }

        /**
         * {@code vitals.server.address}: Local address to listen on; all interfaces when unset (kubelet
         * probes the pod IP).
         *
         * @return the bound value, null when not set
         */
        public java.net.InetAddress getAddress() {
            return address;
        }

        /**
         * Sets {@code vitals.server.address}; Spring Boot calls it when binding the properties.
         *
         * @param address the new value
         */
        public void setAddress(java.net.InetAddress address) {
            this.address = address;
        }

        /**
         * {@code vitals.server.base-path}: Prefix of every probe route, such as /probes; none when empty.
         *
         * @return the bound value
         */
        public String getBasePath() {
            return basePath;
        }

        /**
         * Sets {@code vitals.server.base-path}; Spring Boot calls it when binding the properties.
         *
         * @param basePath the new value
         */
        public void setBasePath(String basePath) {
            this.basePath = basePath;
        }

        /**
         * {@code vitals.server.details}: Who sees check details in probe answers.
         *
         * @return the bound value
         */
        public Details getDetails() {
            return details;
        }

        /**
         * Sets {@code vitals.server.details}; Spring Boot calls it when binding the properties.
         *
         * @param details the new value
         */
        public void setDetails(Details details) {
            this.details = details;
        }

        /**
         * {@code vitals.server.token}: Bearer token that unlocks details when details=when-authorized.
         *
         * @return the bound value, null when not set
         */
        public String getToken() {
            return token;
        }

        /**
         * Sets {@code vitals.server.token}; Spring Boot calls it when binding the properties.
         *
         * @param token the new value
         */
        public void setToken(String token) {
            this.token = token;
        }

        /**
         * {@code vitals.server.event-loop-threads}: Event-loop threads of the probe server (default 1).
         *
         * @return the bound value, null when not set
         */
        public Integer getEventLoopThreads() {
            return eventLoopThreads;
        }

        /**
         * Sets {@code vitals.server.event-loop-threads}; Spring Boot calls it when binding the properties.
         *
         * @param eventLoopThreads the new value
         */
        public void setEventLoopThreads(Integer eventLoopThreads) {
            this.eventLoopThreads = eventLoopThreads;
        }

        /**
         * {@code vitals.server.max-connections}: Connections open at once; a connection over the limit is
         * closed at once (default 1024).
         *
         * @return the bound value, null when not set
         */
        public Integer getMaxConnections() {
            return maxConnections;
        }

        /**
         * Sets {@code vitals.server.max-connections}; Spring Boot calls it when binding the properties.
         *
         * @param maxConnections the new value
         */
        public void setMaxConnections(Integer maxConnections) {
            this.maxConnections = maxConnections;
        }

        /**
         * {@code vitals.server.read-timeout}: Time a request may take to arrive completely (default 5s).
         *
         * @return the bound value, null when not set
         */
        public Duration getReadTimeout() {
            return readTimeout;
        }

        /**
         * Sets {@code vitals.server.read-timeout}; Spring Boot calls it when binding the properties.
         *
         * @param readTimeout the new value
         */
        public void setReadTimeout(Duration readTimeout) {
            this.readTimeout = readTimeout;
        }

        /**
         * {@code vitals.server.idle-timeout}: Time a kept-alive connection may sit without a request (default
         * 60s).
         *
         * @return the bound value, null when not set
         */
        public Duration getIdleTimeout() {
            return idleTimeout;
        }

        /**
         * Sets {@code vitals.server.idle-timeout}; Spring Boot calls it when binding the properties.
         *
         * @param idleTimeout the new value
         */
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

        /**
         * {@code vitals.defaults.mode} or {@code vitals.checks[NAME].mode}: Evaluation mode: scheduled
         * (default) or on-demand (runs when a probe or a person asks, never on a timer).
         *
         * @return the bound value, null when not set
         */
        public Mode getMode() {
            return mode;
        }

        /**
         * Sets {@code vitals.defaults.mode} or {@code vitals.checks[NAME].mode}; Spring Boot calls it when
         * binding the properties.
         *
         * @param mode the new value
         */
        public void setMode(Mode mode) {
            this.mode = mode;
        }

        /**
         * {@code vitals.defaults.interval} or {@code vitals.checks[NAME].interval}: Time between two
         * scheduled runs (default 10s).
         *
         * @return the bound value, null when not set
         */
        public Duration getInterval() {
            return interval;
        }

        /**
         * Sets {@code vitals.defaults.interval} or {@code vitals.checks[NAME].interval}; Spring Boot calls it
         * when binding the properties.
         *
         * @param interval the new value
         */
        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        /**
         * {@code vitals.defaults.timeout} or {@code vitals.checks[NAME].timeout}: Longest time one execution
         * may take before it reports DOWN "timed out" (default 2s).
         *
         * @return the bound value, null when not set
         */
        public Duration getTimeout() {
            return timeout;
        }

        /**
         * Sets {@code vitals.defaults.timeout} or {@code vitals.checks[NAME].timeout}; Spring Boot calls it
         * when binding the properties.
         *
         * @param timeout the new value
         */
        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        /**
         * {@code vitals.defaults.max-age} or {@code vitals.checks[NAME].max-age}: Age after which a scheduled
         * result reads UNKNOWN "stale" (default 3 x interval).
         *
         * @return the bound value, null when not set
         */
        public Duration getMaxAge() {
            return maxAge;
        }

        /**
         * Sets {@code vitals.defaults.max-age} or {@code vitals.checks[NAME].max-age}; Spring Boot calls it
         * when binding the properties.
         *
         * @param maxAge the new value
         */
        public void setMaxAge(Duration maxAge) {
            this.maxAge = maxAge;
        }

        /**
         * {@code vitals.defaults.ttl} or {@code vitals.checks[NAME].ttl}: How long an on-demand result is
         * reused (default 1s).
         *
         * @return the bound value, null when not set
         */
        public Duration getTtl() {
            return ttl;
        }

        /**
         * Sets {@code vitals.defaults.ttl} or {@code vitals.checks[NAME].ttl}; Spring Boot calls it when
         * binding the properties.
         *
         * @param ttl the new value
         */
        public void setTtl(Duration ttl) {
            this.ttl = ttl;
        }

        /**
         * {@code vitals.defaults.failure-threshold} or {@code vitals.checks[NAME].failure-threshold}:
         * Consecutive failed results needed to flip to DOWN (default 1).
         *
         * @return the bound value, null when not set
         */
        public Integer getFailureThreshold() {
            return failureThreshold;
        }

        /**
         * Sets {@code vitals.defaults.failure-threshold} or {@code vitals.checks[NAME].failure-threshold};
         * Spring Boot calls it when binding the properties.
         *
         * @param failureThreshold the new value
         */
        public void setFailureThreshold(Integer failureThreshold) {
            this.failureThreshold = failureThreshold;
        }

        /**
         * {@code vitals.defaults.success-threshold} or {@code vitals.checks[NAME].success-threshold}:
         * Consecutive passed results needed to flip back to UP (default 1).
         *
         * @return the bound value, null when not set
         */
        public Integer getSuccessThreshold() {
            return successThreshold;
        }

        /**
         * Sets {@code vitals.defaults.success-threshold} or {@code vitals.checks[NAME].success-threshold};
         * Spring Boot calls it when binding the properties.
         *
         * @param successThreshold the new value
         */
        public void setSuccessThreshold(Integer successThreshold) {
            this.successThreshold = successThreshold;
        }

        /**
         * {@code vitals.defaults.critical} or {@code vitals.checks[NAME].critical}: Whether a failure makes
         * its group DOWN (true) or only DEGRADED (false); default true.
         *
         * @return the bound value, null when not set
         */
        public Boolean getCritical() {
            return critical;
        }

        /**
         * Sets {@code vitals.defaults.critical} or {@code vitals.checks[NAME].critical}; Spring Boot calls it
         * when binding the properties.
         *
         * @param critical the new value
         */
        public void setCritical(Boolean critical) {
            this.critical = critical;
        }

        /**
         * {@code vitals.defaults.groups} or {@code vitals.checks[NAME].groups}: Vitals groups of the check,
         * replacing those derived from Spring's management.endpoint.health.group.* membership (liveness,
         * readiness, startup or a custom group).
         *
         * @return the bound value, null when not set
         */
        public List<String> getGroups() {
            return groups;
        }

        /**
         * Sets {@code vitals.defaults.groups} or {@code vitals.checks[NAME].groups}; Spring Boot calls it
         * when binding the properties.
         *
         * @param groups the new value
         */
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

        /**
         * {@code vitals.availability.map-spring-states}: Whether Spring's availability events drive Vitals'
         * availability state and Vitals' liveness/readiness status is published back as Spring availability
         * events.
         *
         * @return the bound value
         */
        public boolean isMapSpringStates() {
            return mapSpringStates;
        }

        /**
         * Sets {@code vitals.availability.map-spring-states}; Spring Boot calls it when binding the
         * properties.
         *
         * @param mapSpringStates the new value
         */
        public void setMapSpringStates(boolean mapSpringStates) {
            this.mapSpringStates = mapSpringStates;
        }

        /**
         * {@code vitals.availability.publish-interval}: How often Vitals' liveness/readiness status is
         * compared with Spring's (from memory, never running a check) and published on change. On-demand
         * checks count with results someone asked for (a probe, Actuator): nothing evaluates them on this
         * timer.
         *
         * @return the bound value
         */
        public Duration getPublishInterval() {
            return publishInterval;
        }

        /**
         * Sets {@code vitals.availability.publish-interval}; Spring Boot calls it when binding the
         * properties.
         *
         * @param publishInterval the new value
         */
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

        /**
         * {@code vitals.shutdown.drain-delay}: On context close, readiness reports DOWN "draining" (liveness
         * unchanged, probe server still answering) for this long before the context goes on closing. Give
         * Kubernetes time to take the pod out of its endpoints: a few seconds in production.
         *
         * @return the bound value
         */
        public Duration getDrainDelay() {
            return drainDelay;
        }

        /**
         * Sets {@code vitals.shutdown.drain-delay}; Spring Boot calls it when binding the properties.
         *
         * @param drainDelay the new value
         */
        public void setDrainDelay(Duration drainDelay) {
            this.drainDelay = drainDelay;
        }
    }

    /** Micrometer meters. */
    public static class Metrics {
        /** Whether Vitals' meters are bound when Micrometer is on the class path. */
        private boolean enabled = true;

        /**
         * {@code vitals.metrics.enabled}: Whether Vitals' meters are bound when Micrometer is on the class
         * path.
         *
         * @return the bound value
         */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets {@code vitals.metrics.enabled}; Spring Boot calls it when binding the properties.
         *
         * @param enabled the new value
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }
}
