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
 * }</pre>
 *
 * Operators: {@code == != < <= > >=}. Immutable.
 *
 * @param text the expectation as written
 * @param metric what is compared
 * @param op the operator
 * @param value the bound
 */
public record FleetExpectation(String text, Metric metric, String op, double value) {
    private static final Pattern P = Pattern.compile(
            "\\s*(endpoints|restarts|kills|client errors|zero-endpoint seconds)\\s*(==|!=|<=|>=|<|>)\\s*(\\d+(?:\\.\\d+)?)\\s*(%?)\\s*(always)?\\s*");

    public FleetExpectation {
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
        /** Percent of client requests failed after all retries. */
        CLIENT_ERRORS,
        /** Seconds with zero Ready endpoints. */
        ZERO_ENDPOINT_SECONDS
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
                    + "'restarts == 0', 'kills <= 3', 'client errors < 1%', 'zero-endpoint seconds < 5'");
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
            case "client errors":
                metric = Metric.CLIENT_ERRORS;
                break;
            default:
                metric = Metric.ZERO_ENDPOINT_SECONDS;
        }
        if (metric == Metric.CLIENT_ERRORS && m.group(4).isEmpty()) {
            throw new IllegalArgumentException("expectation '" + text + "': client errors are a percentage, e.g. 'client errors < 1%'");
        }
        if (metric != Metric.CLIENT_ERRORS && !m.group(4).isEmpty()) {
            throw new IllegalArgumentException("expectation '" + text + "': only client errors take a %");
        }
        return new FleetExpectation(text.strip(), metric, m.group(2), Double.parseDouble(m.group(3)));
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
     * @param totals a run's totals
     * @return the value this expectation compares
     */
    public double actual(FleetResult.Totals totals) {
        switch (metric) {
            case ENDPOINTS:
                return totals.minEndpoints();
            case RESTARTS:
                return totals.restarts();
            case KILLS:
                return totals.kills();
            case CLIENT_ERRORS:
                return totals.clientErrorPercent();
            default:
                return totals.zeroEndpointSeconds();
        }
    }
}
