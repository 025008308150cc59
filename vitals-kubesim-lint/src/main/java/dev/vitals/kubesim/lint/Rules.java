package dev.vitals.kubesim.lint;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Every rule {@code vitals lint} knows, and the selection {@code --enable}/{@code --disable}
 * make of them. Rules are named by id ({@code L4}) or name ({@code restart-before-shed});
 * the API-validation findings are {@code api} (ids R1–R11, schema), {@code R22} and
 * {@code Y1} (duplicate key); {@code I1} names an ingress-nginx annotation nothing here reads.
 */
public final class Rules {
    /** Where the rule pages live: {@code docs/lint/<id>.md} in the repository ({@code vitals.repository} in the pom). */
    public static final String DOCS = "https://github.com/vitals-dev/vitals/blob/main/docs/lint/";

    /** The API server would reject the value (R1–R11, unknown or mistyped fields). */
    public static final Rule API = new Fixed("api", "api-validation", Severity.ERROR,
            "the API server would reject the value (probe validation, unknown or mistyped probe fields, bad Service or Ingress values)");
    /** A named probe port that matches no container port: the probe never acts (R22). */
    public static final Rule PORT_NAME = new Fixed("R22", "unresolved-port-name", Severity.ERROR,
            "a probe's named port matches no container port: kubelet errors on every tick and the probe never acts");
    /** A mapping key written twice (the API server's strict decoding rejects it). */
    public static final Rule DUPLICATE_KEY = new Fixed("Y1", "duplicate-key", Severity.ERROR,
            "a key is written twice in one mapping: the API server's strict decoding rejects the object");

    /** An ingress-nginx annotation the simulator does not read (info: what lint and the fleet model leave out). */
    public static final Rule INGRESS_ANNOTATION = new Fixed("I1", "unmodelled-ingress-annotation", Severity.INFO,
            "an Ingress carries an nginx.ingress.kubernetes.io annotation the simulator does not read: lint's routing rules judge"
                    + " the Ingress without it");

    private static final List<Rule> ALL = List.of(API, PORT_NAME, DUPLICATE_KEY, INGRESS_ANNOTATION, new SameEndpointRule(),
            new StartupBudgetRule(), new LivenessTimeoutRule(), new RestartBeforeShedRule(), new MissingStartupRule(),
            new ExecShellRule(), new UndeclaredPortRule(), new NoReadinessRule(), new SharedDependencyRule(),
            new LivenessDependencyRule(), new WidenedGroupRule(), new LivenessReadinessGroupRule(), new AppPortRule(),
            new MissingGroupRule(), new ProbeLatencyRule(), new CpuStarvedLivenessRule(), new ProbeHostRule(),
            new VersionFieldRule(), new FinalProbeKillRule(), new SidecarStartupNeverRule(), new KillBeforeShedRule(),
            new StartupOnReadinessRule(), new QuantityRule(), new StickyRoutingRule(), new ProbeAuthRule(), new ProbeOnRootRule(),
            new StartupGatingRule());

    private Rules() {
    }

    /** @return the rules that run when {@code --enable} is not given: every rule but the opt-in ones */
    public static List<Rule> defaults() {
        List<Rule> out = new ArrayList<>();
        for (Rule r : ALL) {
            if (!r.optIn()) {
                out.add(r);
            }
        }
        return out;
    }

    /** @return every rule, in id order */
    public static List<Rule> all() {
        return ALL;
    }

    /**
     * @param enable ids or names to run (empty = {@link #defaults()})
     * @param disable ids or names not to run
     * @return the selected rules, never empty
     * @throws dev.vitals.kubesim.input.InvalidInputException naming an unknown id, with the known ones; on an empty or blank
     *         item ({@code --enable ''}, {@code --enable L4,}); when no rule is left to run
     */
    public static List<Rule> select(List<String> enable, List<String> disable) {
        Set<Rule> on = new LinkedHashSet<>(enable.isEmpty() ? defaults() : resolve(enable, "--enable"));
        on.removeAll(resolve(disable, "--disable"));
        if (on.isEmpty()) {
            throw new dev.vitals.kubesim.input.InvalidInputException("no rule left to run: --disable removes every rule "
                    + (enable.isEmpty() ? "" : "--enable selects ") + "(rules: " + ids() + ")");
        }
        return new ArrayList<>(on);
    }

    private static List<Rule> resolve(List<String> names, String option) {
        List<Rule> out = new ArrayList<>();
        for (String raw : names) {
            // an empty item is a usage error, not "no filter": --enable '' used to run every rule
            for (String n : raw.split(",", -1)) {
                String s = n.strip();
                if (s.isEmpty()) {
                    throw new dev.vitals.kubesim.input.InvalidInputException(option + ": " + (raw.isBlank() ? "no rule given" : "an empty rule in '"
                            + raw + "'") + "; name rules by id or name, e.g. " + option + " L4,L5 (rules: " + ids() + ")");
                }
                Rule r = find(s);
                if (r == null) {
                    throw new dev.vitals.kubesim.input.InvalidInputException(option + ": unknown rule '" + s + "' (rules: " + ids() + ")");
                }
                out.add(r);
            }
        }
        return out;
    }

    /**
     * Looks a rule up by id or name.
     *
     * @param idOrName a rule id ({@code VL001}) or name
     * @return the rule with that id or name (case-insensitive), or null
     */
    public static Rule find(String idOrName) {
        String s = idOrName.toLowerCase(Locale.ROOT);
        for (Rule r : ALL) {
            if (r.id().equalsIgnoreCase(s) || r.name().equals(s)) {
                return r;
            }
        }
        return null;
    }

    static String ids() {
        List<String> ids = new ArrayList<>();
        for (Rule r : ALL) {
            ids.add(r.id());
        }
        return String.join(", ", ids);
    }

    /**
     * @param id a rule id
     * @return the address of its page, {@link #DOCS} + id + {@code .md}
     */
    public static String docUrl(String id) {
        return DOCS + id + ".md";
    }

    /** A rule whose findings the linter makes itself (validation, YAML). */
    private static final class Fixed extends BaseRule {
        Fixed(String id, String name, Severity severity, String summary) {
            super(id, name, severity, summary, summary, Needs.MANIFEST);
        }

        @Override
        public void check(Target t, LintContext ctx, java.util.function.Consumer<Finding> out) {
        }
    }
}
