package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.model.ProbeSpec;
import dev.vitals.kubesim.model.ProbeType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * L15 (needs {@code --probe-latency} or {@code --from-run}): measured probe latencies against
 * timeoutSeconds. A fraction {@code f} of probes slower than the timeout fail; a kill (or an
 * unready spell) needs failureThreshold of them in a row, which at independent failures starts
 * about {@code (1 − f) · f^FT} times per probe, so per day {@code 86400 / P · (1 − f) · f^FT}.
 * Fires when any measured probe would time out (error when every one would) or when p99 passes
 * half the timeout (thin headroom).
 */
final class ProbeLatencyRule extends BaseRule {
    ProbeLatencyRule() {
        super("L15", "probe-latency", Severity.WARNING, "with --probe-latency/--from-run: measured latencies time out, or leave less than half the timeout",
                "latencies are given (--probe-latency, --from-run) and some would time out, or p99 passes half the timeout", Needs.MANIFEST);
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        for (ProbeType type : ProbeType.values()) {
            List<Duration> lat = ctx.latencies(type);
            Optional<ProbeSpec> p = t.probe(type);
            if (lat.isEmpty() || p.isEmpty()) {
                continue;
            }
            Assessment a = assess(lat, p.get());
            if (a.failFraction == 0 && a.p99 * 2 <= a.timeout) {
                continue;
            }
            String action = type == ProbeType.READINESS ? "an unready spell" : "a kill";
            String msg;
            Severity sev = Severity.WARNING;
            if (a.failFraction >= 1) {
                sev = Severity.ERROR;
                msg = String.format(Locale.ROOT, "every measured %s probe (%s) is slower than timeoutSeconds %d: each one fails,"
                        + " so %s comes after %d × %ds", type.label(), a.text, p.get().timeoutSeconds(), action,
                        p.get().failureThreshold(), p.get().periodSeconds());
            } else if (a.failFraction > 0) {
                msg = String.format(Locale.ROOT, "%.1f%% of measured %s probes (%s) are slower than timeoutSeconds %d; %s"
                        + " needs %d in a row: about %s per pod per day", a.failFraction * 100, type.label(), a.text,
                        p.get().timeoutSeconds(), action, p.get().failureThreshold(), rate(a.perDay));
            } else {
                msg = String.format(Locale.ROOT, "measured %s latency (%s) passes half of timeoutSeconds %d: one slow"
                        + " spell from failing", type.label(), a.text, p.get().timeoutSeconds());
            }
            int need = (int) Math.ceil(a.max * 2);
            out.accept(new Finding(id(), name(), sev, t.file(), t.line(type.fieldName() + ".timeoutSeconds"), t.object(),
                    t.containerName(), t.field(type.fieldName() + ".timeoutSeconds"), msg, "R23, R24, R25",
                    "raise " + type.fieldName() + ".timeoutSeconds to at least " + Math.max(need, p.get().timeoutSeconds() + 1)
                            + " (2× the slowest measured), or make the probe cheaper (answer it from memory on a"
                            + " port of its own)"));
        }
    }

    static final class Assessment {
        double failFraction;
        double p99;
        double max;
        double timeout;
        double perDay;
        String text;
    }

    static Assessment assess(List<Duration> lat, ProbeSpec p) {
        List<Double> s = new ArrayList<>();
        for (Duration d : lat) {
            s.add(d.toNanos() / 1e9);
        }
        Collections.sort(s);
        Assessment a = new Assessment();
        a.timeout = p.timeoutSeconds();
        int over = 0;
        for (double v : s) {
            if (v >= a.timeout) {
                over++;
            }
        }
        a.failFraction = over / (double) s.size();
        a.p99 = s.get(Math.min(s.size() - 1, (int) Math.ceil(0.99 * s.size()) - 1));
        a.max = s.get(s.size() - 1);
        a.perDay = 86400.0 / p.periodSeconds() * (1 - a.failFraction) * Math.pow(a.failFraction, p.failureThreshold());
        a.text = s.size() == 1 ? String.format(Locale.ROOT, "%.3gs", a.max)
                : String.format(Locale.ROOT, "%d samples, p50 %.3gs, p99 %.3gs, max %.3gs", s.size(),
                        s.get(Math.max(0, (int) Math.ceil(0.5 * s.size()) - 1)), a.p99, a.max);
        return a;
    }

    private static String rate(double perDay) {
        if (perDay >= 1) {
            return String.format(Locale.ROOT, "%.1f", perDay);
        }
        if (perDay * 30 >= 1) {
            return String.format(Locale.ROOT, "%.2f (one every %.0f days)", perDay, 1 / perDay);
        }
        return String.format(Locale.ROOT, "%.2g (one every %.0f days)", perDay, 1 / perDay);
    }
}
