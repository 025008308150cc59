package dev.vitals.kubesim.scenario;

import dev.vitals.kubesim.fault.LoadGenerator;
import dev.vitals.kubesim.result.Expectation;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One thing a scenario or a replay does to the pod, its dependencies or its traffic. The one
 * action model of the simulator: scenario files ({@link Scenario}) and {@code vitals replay}
 * (its steps) build these, and {@link ActionRunner} performs them. Immutable values.
 */
public sealed interface Action {

    /**
     * @return the action's kind as written in scenario files: load, fault, heal, pause, resume, signal,
     *         delete, kubelet-restart; and sustained-load (replay's; scenario files do not offer it)
     */
    String kind();

    /** @return a short description for the timeline */
    String describe();

    /** @param spec the requests to send (a bounded count) */
    record Load(LoadGenerator.Spec spec) implements Action {
        /**
         * Validates the components.
         *
         * @param spec the requests to send (a bounded count)
         * @throws NullPointerException if a required component is null
         */
        public Load {
            Objects.requireNonNull(spec, "spec");
        }

        @Override
        public String kind() {
            return "load";
        }

        @Override
        public String describe() {
            return "load " + spec.describe();
        }
    }

    /**
     * Closed-loop load for a time (replay's export load): each client re-sends as soon as its previous
     * answer arrived.
     *
     * @param spec the clients, paths and how long they send
     */
    record SustainedLoad(LoadGenerator.Sustained spec) implements Action {
        /**
         * Validates the components.
         *
         * @param spec the clients, paths and how long they send
         * @throws NullPointerException if a required component is null
         */
        public SustainedLoad {
            Objects.requireNonNull(spec, "spec");
        }

        @Override
        public String kind() {
            return "sustained-load";
        }

        @Override
        public String describe() {
            return "sustained load: " + spec.describe();
        }
    }

    /**
     * A fault at a named {@link dev.vitals.kubesim.fault.FaultProxy}.
     *
     * @param proxy the proxy's name
     * @param fault refuse, cut, blackhole or latency
     * @param latency the delay each way for {@code latency}, else zero
     */
    record Fault(String proxy, String fault, Duration latency) implements Action {
        /** The faults a proxy knows. */
        public static final Set<String> KINDS = Set.of("refuse", "cut", "blackhole", "latency");

        /**
         * Validates the components.
         *
         * @param proxy the proxy's name
         * @param fault refuse, cut, blackhole or latency
         * @param latency the delay each way for {@code latency}, else zero
         * @throws IllegalArgumentException if a component is outside its documented range
         * @throws NullPointerException if a required component is null
         */
        public Fault {
            Objects.requireNonNull(proxy, "proxy");
            Objects.requireNonNull(latency, "latency");
            fault = Objects.requireNonNull(fault, "fault").toLowerCase(Locale.ROOT);
            if (!KINDS.contains(fault)) {
                throw new IllegalArgumentException("unknown fault '" + fault + "' (refuse, cut, blackhole, latency)");
            }
        }

        @Override
        public String kind() {
            return "fault";
        }

        @Override
        public String describe() {
            return "fault " + proxy + " " + fault + (fault.equals("latency") ? " " + latency.toMillis() + "ms" : "");
        }
    }

    /** @param proxy the proxy whose faults end */
    record Heal(String proxy) implements Action {
        /**
         * Validates the components.
         *
         * @param proxy the proxy whose faults end
         * @throws NullPointerException if a required component is null
         */
        public Heal {
            Objects.requireNonNull(proxy, "proxy");
        }

        @Override
        public String kind() {
            return "heal";
        }

        @Override
        public String describe() {
            return "heal " + proxy;
        }
    }

    /** SIGSTOP to the running container. */
    record Pause() implements Action {
        @Override
        public String kind() {
            return "pause";
        }

        @Override
        public String describe() {
            return "pause (SIGSTOP)";
        }
    }

    /** SIGCONT to the running container. */
    record Resume() implements Action {
        @Override
        public String kind() {
            return "resume";
        }

        @Override
        public String describe() {
            return "resume (SIGCONT)";
        }
    }

    /** @param name a signal name without {@code SIG}, e.g. {@code HUP} */
    record Signal(String name) implements Action {
        /**
         * Validates the components.
         *
         * @param name a signal name without {@code SIG}, e.g. {@code HUP}
         * @throws NullPointerException if a required component is null
         */
        public Signal {
            Objects.requireNonNull(name, "name");
        }

        @Override
        public String kind() {
            return "signal";
        }

        @Override
        public String describe() {
            return "signal SIG" + name;
        }
    }

    /** The kubelet process restarts: workers recreated with start jitter (R15, R55). */
    record KubeletRestart() implements Action {
        @Override
        public String kind() {
            return "kubelet-restart";
        }

        @Override
        public String describe() {
            return "kubelet restart";
        }
    }

    /** @param grace the deletion grace period, if it overrides the pod's (R43, R53) */
    record Delete(Optional<Duration> grace) implements Action {
        /**
         * Validates the components.
         *
         * @param grace the deletion grace period, if it overrides the pod's (R43, R53)
         * @throws NullPointerException if a required component is null
         */
        public Delete {
            Objects.requireNonNull(grace, "grace");
        }

        @Override
        public String kind() {
            return "delete";
        }

        @Override
        public String describe() {
            return "delete pod" + grace.map(g -> " (grace " + Expectation.fmt(g.toMillis() / 1000.0) + "s)").orElse("");
        }
    }
}
