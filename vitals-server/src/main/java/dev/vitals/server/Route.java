package dev.vitals.server;

import java.util.List;
import java.util.Set;

/**
 * The outcome of routing one request: either a fixed answer (404, 405, 400) or what to read
 * and how to format it. Immutable.
 */
final class Route {
    enum Kind {
        /** Answer with {@link #fixed()}; nothing to read. */
        FIXED,
        /** {@code /livez}, {@code /readyz}, {@code /startupz}: text, plain or verbose. */
        PROBE,
        /** {@code /livez/<check>} and the like: text for one check. */
        CHECK,
        /** {@code /health/<group>}: JSON for one group. */
        HEALTH_GROUP,
        /** {@code /health}: JSON for every group. */
        HEALTH_ALL
    }

    private final Kind kind;
    private final ProbeResponse fixed;
    private final String word;
    private final List<String> groups;
    private final String check;
    private final boolean verbose;
    private final Set<String> excluded;
    private final boolean detailsShown;

    private Route(Kind kind, ProbeResponse fixed, String word, List<String> groups, String check, boolean verbose,
                  Set<String> excluded, boolean detailsShown) {
        this.kind = kind;
        this.fixed = fixed;
        this.word = word;
        this.groups = groups;
        this.check = check;
        this.verbose = verbose;
        this.excluded = excluded;
        this.detailsShown = detailsShown;
    }

    static Route fixed(ProbeResponse response) {
        return new Route(Kind.FIXED, response, null, List.of(), null, false, Set.of(), false);
    }

    static Route read(Kind kind, String word, List<String> groups, String check, boolean verbose, Set<String> excluded,
                      boolean detailsShown) {
        return new Route(kind, null, word, groups, check, verbose, excluded, detailsShown);
    }

    Kind kind() {
        return kind;
    }

    /** @return the fixed answer of a {@link Kind#FIXED} route, else null */
    ProbeResponse fixed() {
        return fixed;
    }

    /** @return the probe word of the summary line ({@code livez}, {@code readyz}, {@code startupz}) */
    String word() {
        return word;
    }

    /** @return the groups to read, in order; empty for a fixed answer */
    List<String> groups() {
        return groups;
    }

    /** @return the check of a {@link Kind#CHECK} route, else null */
    String check() {
        return check;
    }

    boolean verbose() {
        return verbose;
    }

    /** @return check names to leave out, sorted */
    Set<String> excluded() {
        return excluded;
    }

    boolean detailsShown() {
        return detailsShown;
    }

    @Override
    public String toString() {
        return kind == Kind.FIXED ? "fixed " + fixed
                : kind + " " + groups + (check != null ? "/" + check : "") + (verbose ? " verbose" : "")
                        + (excluded.isEmpty() ? "" : " exclude=" + excluded) + (detailsShown ? " details" : "");
    }
}
