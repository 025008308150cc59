package dev.vitals.kubesim.fleet;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One expectation about a fleet run, checked against its totals. Syntax (spaces optional around
 * the operator):
 *
 * <pre>{@code
 * endpoints > 0 always         the Service never had zero Ready endpoints after warm-up
 * restarts == 0                container restarts summed over the fleet
 * kills <= 3                   liveness/startup kills summed over the fleet
 * client errors < 1%           requests that failed after all retries, percent of requests
 * zero-endpoint seconds < 5    seconds the Service had no Ready endpoint
 * crashloop seconds < 60       replica-seconds waiting in CrashLoopBackOff, summed over the fleet
 * not-ready seconds < 120      replica-seconds with Ready false, summed over the fleet
 * no-endpoint requests == 0    attempts refused because the Service had no Ready endpoint
 * max down <= 1                the most replicas not Ready at the same moment
 * restarts == 0 in 80% of runs an ensemble: holds when it holds in at least that share of the runs
 * }</pre>
 *
 * Operators: {@code == != < <= > >=}. Over an ensemble ({@code --runs N}) an expectation holds
 * when it holds in every run unless it states a share ({@code in P% of runs}). Immutable.
 *
 * @param text the expectation as written
 * @param metric what is compared
 * @param op the operator
 * @param value the bound
 * @param sharePercent the share of an ensemble's runs in which it must hold, 1–100 (100 unless stated)
 */
public record FleetExpectation(String text, Metric metric, String op, double value, int sharePercent) {
    private static final Pattern P = Pattern.compile(
            "\\s*(endpoints|restarts|kills|pods killed|client errors|zero-endpoint seconds|crashloop seconds|not-ready seconds"
                    + "|no-endpoint requests|max down|rollout stalled|new version errors)\\s*(==|!=|<=|>=|<|>)\\s*(\\d+(?:\\.\\d+)?)\\s*(%?)\\s*(always)?"
                    + "\\s*(?:in\\s+(\\d{1,3})\\s*%\\s+of\\s+runs)?\\s*");

    /**
     * Validates the components.
     *
     * @param text the expectation as written
     * @param metric what is compared
     * @param op the operator
     * @param value the bound
     * @param sharePercent the share of an ensemble's runs in which it must hold, 1–100 (100 unless stated)
     * @throws IllegalArgumentException if a component is outside its documented range
     * @throws NullPointerException if a required component is null
     */
    public FleetExpectation {
        if (sharePercent < 1 || sharePercent > 100) {
            throw new IllegalArgumentException("sharePercent must be 1-100, was " + sharePercent);
        }
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(metric, "metric");
        Objects.requireNonNull(op, "op");
    }

    /** What an expectation compares. */
    public enum Metric {
        /** The fewest Ready endpoints the Service had after warm-up ("always"). */
        ENDPOINTS,
        /** Container restarts over the fleet. */
        RESTARTS,
        /** Kills over the fleet. */
        KILLS,
        /** Distinct replicas killed at least once. */
        PODS_KILLED,
        /** Percent of client requests failed after all retries. */
        CLIENT_ERRORS,
        /** Seconds with zero Ready endpoints. */
        ZERO_ENDPOINT_SECONDS,
        /** Replica-seconds in CrashLoopBackOff. */
        CRASHLOOP_SECONDS,
        /** Replica-seconds not Ready. */
        NOT_READY_SECONDS,
        /** Attempts that found no endpoint. */
        NO_ENDPOINT_REQUESTS,
        /** The most replicas not Ready at once. */
        MAX_DOWN,
        /** 1 when the rollout exceeded its progressDeadlineSeconds, else 0 (0 without a rollout) */
        ROLLOUT_STALLED,
        /** failed attempts on the new version's pods, % of its attempts (0 without a rollout) */
        NEW_VERSION_ERRORS
    }

    /**
     * @param text e.g. {@code restarts == 0}
     * @return the expectation
     * @throws IllegalArgumentException naming the text and the accepted forms
     */
    public static FleetExpectation parse(String text) {
        Matcher m = P.matcher(text.toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("expectation '" + text + "' not understood: use e.g. 'endpoints > 0 always', "
                    + "'restarts == 0', 'kills <= 3', 'pods killed >= 2', 'client errors < 1%', 'zero-endpoint seconds < 5', 'crashloop seconds < 60', "
                    + "'not-ready seconds < 120', 'no-endpoint requests == 0', 'max down <= 1', 'rollout stalled == 0', 'new version errors < 1%', optionally followed by 'in 80% of runs'");
        }
        Metric metric;
        switch (m.group(1)) {
            case "endpoints":
                metric = Metric.ENDPOINTS;
                break;
            case "restarts":
                metric = Metric.RESTARTS;
                break;
            case "kills":
                metric = Metric.KILLS;
                break;
            case "pods killed":
                metric = Metric.PODS_KILLED;
                break;
            case "client errors":
                metric = Metric.CLIENT_ERRORS;
                break;
            case "crashloop seconds":
                metric = Metric.CRASHLOOP_SECONDS;
                break;
            case "not-ready seconds":
                metric = Metric.NOT_READY_SECONDS;
                break;
            case "no-endpoint requests":
                metric = Metric.NO_ENDPOINT_REQUESTS;
                break;
            case "max down":
                metric = Metric.MAX_DOWN;
                break;
            case "rollout stalled":
                metric = Metric.ROLLOUT_STALLED;
                break;
            case "new version errors":
                metric = Metric.NEW_VERSION_ERRORS;
                break;
            default:
                metric = Metric.ZERO_ENDPOINT_SECONDS;
        }
        int share = m.group(6) == null ? 100 : Integer.parseInt(m.group(6));
        if (share < 1 || share > 100) {
            throw new IllegalArgumentException("expectation '" + text + "': the share of runs must be 1-100%, was " + share + "%");
        }
        boolean percent = metric == Metric.CLIENT_ERRORS || metric == Metric.NEW_VERSION_ERRORS;
        if (percent && m.group(4).isEmpty()) {
            throw new IllegalArgumentException("expectation '" + text + "': " + m.group(1) + " are a percentage, e.g. '"
                    + m.group(1) + " < 1%'");
        }
        if (!percent && !m.group(4).isEmpty()) {
            throw new IllegalArgumentException("expectation '" + text + "': only client errors and new version errors take a %");
        }
        return new FleetExpectation(text.strip(), metric, m.group(2), Double.parseDouble(m.group(3)), share);
    }

    /**
     * @param actual the measured value
     * @return whether the expectation holds
     */
    public boolean holds(double actual) {
        switch (op) {
            case "==":
                return actual == value;
            case "!=":
                return actual != value;
            case "<":
                return actual < value;
            case "<=":
                return actual <= value;
            case ">":
                return actual > value;
            default:
                return actual >= value;
        }
    }

    /**
     * @param totals a run's totals (a run without a rollout: the rollout metrics read 0)
     * @return the value this expectation compares
     */
    public double actual(FleetResult.Totals totals) {
        return actual(totals, java.util.Optional.empty());
    }

    /**
     * @param totals a run's totals
     * @param rollout its rollout's outcome, if it had one
     * @return the measured value of this expectation's metric
     */
    public double actual(FleetResult.Totals totals, java.util.Optional<FleetResult.RolloutStatus> rollout) {
        switch (metric) {
            case ROLLOUT_STALLED:
                return rollout.map(r -> r.stalled() ? 1.0 : 0.0).orElse(0.0);
            case NEW_VERSION_ERRORS:
                return rollout.map(r -> r.versions().get(1).errorPercent()).orElse(0.0);
            case ENDPOINTS:
                return totals.minEndpoints();
            case RESTARTS:
                return totals.restarts();
            case KILLS:
                return totals.kills();
            case PODS_KILLED:
                return totals.podsKilled();
            case CLIENT_ERRORS:
                return totals.clientErrorPercent();
            case CRASHLOOP_SECONDS:
                return totals.crashLoopSeconds();
            case NOT_READY_SECONDS:
                return totals.notReadySeconds();
            case NO_ENDPOINT_REQUESTS:
                return totals.noEndpointRequests();
            case MAX_DOWN:
                return totals.maxDown();
            default:
                return totals.zeroEndpointSeconds();
        }
    }
}
