package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a rule knows besides the container: the application's real start-up time, its
 * configuration (for the app-config join) and measured probe latencies. Immutable; shared by
 * every rule of a run.
 */
public final class LintContext {
    private final Optional<Duration> startupTime;
    private final Optional<AppConfig> appConfig;
    private final Map<ProbeType, List<Duration>> latencies;
    private final dev.vitals.kubesim.model.KubernetesVersion version;

    /**
     * @param startupTime how long the application needs to start, if known
     * @param appConfig the application's configuration, if given
     * @param latencies measured latencies per probe type (one value or a sample), possibly empty
     */
    public LintContext(Optional<Duration> startupTime, Optional<AppConfig> appConfig,
            Map<ProbeType, List<Duration>> latencies) {
        this(startupTime, appConfig, latencies, dev.vitals.kubesim.model.KubernetesVersion.NEWEST);
    }

    /**
     * @param startupTime how long the application needs to start, if known
     * @param appConfig the application's configuration, if given
     * @param latencies measured latencies per probe type (one value or a sample), possibly empty
     * @param version the Kubernetes release the manifests are for ({@code --kubernetes-version})
     */
    public LintContext(Optional<Duration> startupTime, Optional<AppConfig> appConfig,
            Map<ProbeType, List<Duration>> latencies, dev.vitals.kubesim.model.KubernetesVersion version) {
        this.version = Objects.requireNonNull(version, "version");
        this.startupTime = Objects.requireNonNull(startupTime, "startupTime");
        this.appConfig = Objects.requireNonNull(appConfig, "appConfig");
        Map<ProbeType, List<Duration>> copy = new EnumMap<>(ProbeType.class);
        latencies.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        this.latencies = copy;
    }

    /** @return a context with nothing known */
    public static LintContext empty() {
        return new LintContext(Optional.empty(), Optional.empty(), Map.of());
    }

    /** @return the Kubernetes release the manifests are for */
    public dev.vitals.kubesim.model.KubernetesVersion version() {
        return version;
    }

    /** @return the start-up time given with {@code --startup-seconds} */
    public Optional<Duration> startupTime() {
        return startupTime;
    }

    /** @return true when {@code --app-config} was given */
    public boolean hasAppConfig() {
        return appConfig.isPresent();
    }

    /**
     * @param t a container
     * @return the application's health layout as that container runs it (its env and args applied)
     */
    Optional<AppHealth> app(Target t) {
        if (appConfig.isEmpty()) {
            return Optional.empty();
        }
        List<String> args = new ArrayList<>();
        t.container().path("command").forEach(n -> args.add(n.asText()));
        t.container().path("args").forEach(n -> args.add(n.asText()));
        return Optional.of(new AppHealth(appConfig.get().view(t.literalEnv(), args)));
    }

    /**
     * The measured latencies of one probe type.
     *
     * @param t startup, liveness or readiness
     * @return measured latencies of that probe type (empty when none were given)
     */
    public List<Duration> latencies(ProbeType t) {
        return latencies.getOrDefault(t, List.of());
    }

    /** @return true when any latency was given */
    public boolean hasLatencies() {
        return !latencies.isEmpty();
    }
}
