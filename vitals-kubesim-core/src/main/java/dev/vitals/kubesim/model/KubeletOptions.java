package dev.vitals.kubesim.model;

import java.time.Duration;
import java.util.Objects;

/**
 * Knobs of the kubelet model. Immutable; build with {@link #builder()}. Defaults follow the
 * default code path of docs/spec/kubelet-probes.md.
 */
public final class KubeletOptions {
    private final String kubeletVersion;
    private final String podIp;
    private final Duration initialBackoff;
    private final Duration maxBackoff;
    private final Duration backoffReset;
    private final Duration containerStartDelay;
    private final boolean resetCountersPerInstance;
    private final boolean keepStatusOnKubeletRestart;
    private final boolean startedInheritedOnContainerRestart;
    private final long jitterSeed;

    private KubeletOptions(Builder b) {
        this.kubeletVersion = b.kubeletVersion;
        this.podIp = b.podIp;
        this.maxBackoff = b.maxBackoff;
        // R52: a cap below the initial wait also becomes the first wait.
        this.initialBackoff = b.initialBackoff.compareTo(b.maxBackoff) > 0 ? b.maxBackoff : b.initialBackoff;
        this.backoffReset = b.backoffReset;
        this.containerStartDelay = b.containerStartDelay;
        this.resetCountersPerInstance = b.resetCountersPerInstance;
        this.keepStatusOnKubeletRestart = b.keepStatusOnKubeletRestart;
        this.startedInheritedOnContainerRestart = b.startedInheritedOnContainerRestart;
        this.jitterSeed = b.jitterSeed;
    }

    /**
     * @return true (the default, kubelet 1.35+ with {@code ChangeContainerStatusOnKubeletRestart}
     *         off) to keep a long-running container's started flag and, in a Ready pod, its
     *         readiness across a kubelet restart; false for the older reset to initial values (R55)
     */
    public boolean keepStatusOnKubeletRestart() {
        return keepStatusOnKubeletRestart;
    }

    /**
     * @return true to model kubernetes#141155 (kubelet 1.35–1.37,
     *         {@link KubernetesVersion#startupGatingRegression()}): a container restarted after its previous
     *         instance had started inherits {@code Started}, so its liveness and readiness probes run at once,
     *         not gated by its startup probe (whose worker then stops, as for any started container); false
     *         (the default) for the documented rule (R30)
     */
    public boolean startedInheritedOnContainerRestart() {
        return startedInheritedOnContainerRestart;
    }

    /** @return the seed of the worker start jitter after a kubelet restart (R15); default 0 */
    public long jitterSeed() {
        return jitterSeed;
    }

    /** @return the defaults */
    public static KubeletOptions defaults() {
        return builder().build();
    }

    /** @return a builder with the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** @return {@code <major>.<minor>} used in {@code User-Agent: kube-probe/…} (default 1.36, R57) */
    public String kubeletVersion() {
        return kubeletVersion;
    }

    /** @return the address standing in for the pod IP (default 127.0.0.1) */
    public String podIp() {
        return podIp;
    }

    /** @return the first CrashLoopBackOff wait (default 10 s, R47) */
    public Duration initialBackoff() {
        return initialBackoff;
    }

    /** @return the back-off cap (default 300 s, R47, R52) */
    public Duration maxBackoff() {
        return maxBackoff;
    }

    /** @return the back-off state lifetime (fixed at 600 s by the kubelet, R47) */
    public Duration backoffReset() {
        return backoffReset;
    }

    /**
     * @return how long after the workers are created the container starts (default 10 ms):
     *         kubelet creates the workers at pod sync, before the container exists (R14), so
     *         a tick at exactly {@code D} after worker creation finds fewer than {@code D}
     *         whole seconds since StartedAt and the first probe comes one period later (R16, R17)
     */
    public Duration containerStartDelay() {
        return containerStartDelay;
    }

    /** @return true to reset counters per container instance ([CB] behaviour; default false, R28) */
    public boolean resetCountersPerInstance() {
        return resetCountersPerInstance;
    }

    /** Builder; not thread-safe. */
    public static final class Builder {
        private String kubeletVersion = "1.36";
        private String podIp = "127.0.0.1";
        private Duration initialBackoff = Duration.ofSeconds(10);
        private Duration maxBackoff = Duration.ofSeconds(300);
        private Duration backoffReset = Duration.ofSeconds(600);
        private Duration containerStartDelay = Duration.ofMillis(10);
        private boolean resetCountersPerInstance;
        private boolean keepStatusOnKubeletRestart = true;
        private boolean startedInheritedOnContainerRestart;
        private long jitterSeed;

        private Builder() {
        }

        /**
         * @param v {@code <major>.<minor>}, e.g. 1.36
         * @return this builder
         */
        public Builder kubeletVersion(String v) {
            if (!v.matches("\\d+\\.\\d+\\+?")) {
                throw new IllegalArgumentException("kubeletVersion must look like 1.36, was '" + v + "'");
            }
            this.kubeletVersion = v;
            return this;
        }

        /**
         * @param ip loopback address standing in for the pod IP
         * @return this builder
         */
        public Builder podIp(String ip) {
            this.podIp = Objects.requireNonNull(ip, "ip");
            return this;
        }

        /**
         * @param d first back-off wait, ≥ 0
         * @return this builder
         */
        public Builder initialBackoff(Duration d) {
            this.initialBackoff = nonNegative("initialBackoff", d);
            return this;
        }

        /**
         * @param d back-off cap, ≥ 0
         * @return this builder
         */
        public Builder maxBackoff(Duration d) {
            this.maxBackoff = nonNegative("maxBackoff", d);
            return this;
        }

        /**
         * @param d back-off state lifetime, ≥ 0 (kubelet: 600 s)
         * @return this builder
         */
        public Builder backoffReset(Duration d) {
            this.backoffReset = nonNegative("backoffReset", d);
            return this;
        }

        /**
         * @param d delay between worker creation and container start, ≥ 0
         * @return this builder
         */
        public Builder containerStartDelay(Duration d) {
            this.containerStartDelay = nonNegative("containerStartDelay", d);
            return this;
        }

        /**
         * @param keep true (default) for kubelet 1.35+'s status kept across a kubelet restart,
         *        false for the reset to initial values (R55)
         * @return this builder
         */
        public Builder keepStatusOnKubeletRestart(boolean keep) {
            this.keepStatusOnKubeletRestart = keep;
            return this;
        }

        /**
         * @param inherit true to model kubernetes#141155 ({@link KubeletOptions#startedInheritedOnContainerRestart()})
         * @return this builder
         */
        public Builder startedInheritedOnContainerRestart(boolean inherit) {
            this.startedInheritedOnContainerRestart = inherit;
            return this;
        }

        /**
         * @param seed the seed of the worker start jitter after a kubelet restart (R15)
         * @return this builder
         */
        public Builder jitterSeed(long seed) {
            this.jitterSeed = seed;
            return this;
        }

        /**
         * @param reset true for [CB] per-instance counters
         * @return this builder
         */
        public Builder resetCountersPerInstance(boolean reset) {
            this.resetCountersPerInstance = reset;
            return this;
        }

        private static Duration nonNegative(String name, Duration d) {
            if (d.isNegative()) {
                throw new IllegalArgumentException(name + " must be ≥ 0, was " + d);
            }
            return d;
        }

        /** @return the options */
        public KubeletOptions build() {
            return new KubeletOptions(this);
        }
    }
}
