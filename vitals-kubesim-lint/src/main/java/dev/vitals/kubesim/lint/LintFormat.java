package dev.vitals.kubesim.lint;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The output formats of {@code vitals lint}: {@code text} (default, for people),
 * {@code json} (for scripts), {@code sarif} (SARIF 2.1.0, for code-scanning upload) and
 * {@code junit} (JUnit XML, for CI test reports). Stateless; thread-safe.
 */
public enum LintFormat {
    /** {@code file:line: severity ID name object: message} then {@code fix:}; a summary line. */
    TEXT,
    /** One JSON object: summary, findings, suppressed, offByConfig, config, notices, skipped, duplicates, inputs. */
    JSON,
    /** SARIF 2.1.0 with one run, the rules that ran and one result per finding (silenced ones with {@code suppressions}). */
    SARIF,
    /** JUnit XML: one test suite per input, one test case per container. */
    JUNIT;

    /** Made on the first JSON or SARIF report only: a text report never builds an ObjectMapper (CLI start-up). */
    private static final class Json {
        static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                .configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
    }

    /**
     * @param text {@code text}, {@code json}, {@code sarif} or {@code junit}
     * @return the format
     * @throws dev.vitals.kubesim.input.InvalidInputException for anything else
     */
    public static LintFormat parse(String text) {
        for (LintFormat f : values()) {
            if (f.name().equalsIgnoreCase(text.strip())) {
                return f;
            }
        }
        throw new dev.vitals.kubesim.input.InvalidInputException("--format must be text, json, sarif or junit, was '" + text + "'");
    }

    /**
     * Writes the report.
     *
     * @param r the report
     * @param failOn the severity that fails the run (junit marks those as failures)
     * @param version the tool version for SARIF
     * @param out where to write (not closed)
     */
    public void write(LintReport r, Optional<Severity> failOn, String version, Writer out) {
        try {
            switch (this) {
                case TEXT:
                    text(r, failOn, out);
                    break;
                case JSON:
                    Json.MAPPER.writeValue(out, json(r, failOn));
                    out.write('\n');
                    break;
                case SARIF:
                    Json.MAPPER.writeValue(out, sarif(r, version));
                    out.write('\n');
                    break;
                default:
                    junit(r, failOn, out);
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void text(LintReport r, Optional<Severity> failOn, Writer out) throws IOException {
        for (Finding f : r.findings()) {
            out.write(f.location() + ": " + f.severity().label() + " " + f.rule() + " " + f.name() + ": "
                    + f.subject() + ": " + f.message() + "\n");
            if (!f.fix().isEmpty()) {
                out.write("    fix: " + f.fix() + "\n");
            }
            out.write("    see: " + Rules.docUrl(f.rule()) + "\n");
        }
        for (LintReport.FileSummary s : r.files()) {
            boolean onlyCopiesOrPatches = r.inputs().duplicates().stream().anyMatch(d -> d.again().startsWith(s.name() + ":"))
                    || r.inputs().skipped().stream().anyMatch(k -> k.name().equals(s.name())
                            || k.name().startsWith(s.name() + ":")); // a skipped input is said once, as skipped
            if (s.error().isEmpty() && s.workloads() == 0 && !onlyCopiesOrPatches) {
                out.write(s.name() + ": no workloads" + (s.otherKinds().isEmpty() ? "" : " (" + kinds(s.otherKinds()) + ")")
                        + "\n");
            }
        }
        for (LintReport.Suppressed s : r.suppressed()) {
            out.write(s.finding().location() + ": suppressed " + s.finding().rule() + " " + s.finding().name() + ": "
                    + s.finding().subject() + " (" + s.annotation() + ": " + s.reason() + ")\n");
        }
        for (LintReport.Skipped s : r.inputs().skipped()) {
            out.write(s.name() + ": skipped: " + s.reason() + "\n");
        }
        for (LintReport.Duplicate d : r.inputs().duplicates()) {
            out.write(d.again() + ": duplicate " + d.object() + " (linted once, at " + d.first() + ")\n");
        }
        for (String n : r.notices()) {
            out.write(n + "\n");
        }
        if (r.config().file().isPresent()) {
            out.write("config " + r.config().describe() + disabledCounts(r) + "\n");
        }
        out.write(summary(r, failOn) + "\n");
    }

    /** @return the one-line summary */
    static String summary(LintReport r, Optional<Severity> failOn) {
        int errors = r.count(Severity.ERROR);
        int warnings = r.count(Severity.WARNING);
        int infos = r.count(Severity.INFO);
        StringBuilder b = new StringBuilder();
        b.append(r.files().size()).append(r.files().size() == 1 ? " input, " : " inputs, ").append(r.workloads())
                .append(r.workloads() == 1 ? " workload, " : " workloads, ").append(r.containers())
                .append(r.containers() == 1 ? " container: " : " containers: ");
        b.append(errors).append(errors == 1 ? " error, " : " errors, ").append(warnings)
                .append(warnings == 1 ? " warning" : " warnings");
        if (infos > 0) {
            b.append(", ").append(infos).append(" info");
        }
        if (!r.suppressed().isEmpty()) {
            b.append(", ").append(r.suppressed().size()).append(" suppressed");
        }
        if (!r.disabled().isEmpty()) {
            b.append(", ").append(r.disabled().size()).append(" off by config");
        }
        if (!r.inputs().skipped().isEmpty()) {
            b.append(", ").append(r.inputs().skipped().size()).append(" skipped");
        }
        if (!r.inputs().duplicates().isEmpty()) {
            b.append(", ").append(r.inputs().duplicates().size()).append(r.inputs().duplicates().size() == 1 ? " duplicate"
                    : " duplicates");
        }
        if (!r.servicesSeen() && r.workloads() > 0) {
            b.append("; no Service in the input");
        }
        if (!r.errors().isEmpty()) {
            b.append("; ").append(r.errors().size()).append(r.errors().size() == 1 ? " input" : " inputs")
                    .append(" could not be linted");
        }
        b.append(failOn.map(s -> " (fails on " + s.label() + ")").orElse(" (never fails on findings)"));
        return b.toString();
    }

    /** @return {@code " (L5: 3 findings not shown)"} per rule the configuration turned off, or empty */
    private static String disabledCounts(LintReport r) {
        Map<String, Integer> n = new java.util.TreeMap<>();
        r.disabled().forEach(f -> n.merge(f.rule(), 1, Integer::sum));
        List<String> parts = new ArrayList<>();
        n.forEach((k, v) -> parts.add(k + ": " + v + (v == 1 ? " finding" : " findings")));
        return parts.isEmpty() ? "" : " (not shown: " + String.join(", ", parts) + ")";
    }

    /** @return {@code s} ending as a sentence: a full stop added unless it ends with one (or ! ?) */
    static String sentence(String s) {
        String t = s.strip();
        return t.isEmpty() || t.endsWith(".") || t.endsWith("!") || t.endsWith("?") ? t : t + ".";
    }

    private static String kinds(Map<String, Integer> kinds) {
        List<String> parts = new ArrayList<>();
        kinds.forEach((k, n) -> parts.add(n > 1 ? k + " ×" + n : k));
        return String.join(", ", parts);
    }

    private static ObjectNode json(LintReport r, Optional<Severity> failOn) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        ObjectNode sum = root.putObject("summary");
        sum.put("inputs", r.files().size()).put("workloads", r.workloads()).put("containers", r.containers())
                .put("errors", r.count(Severity.ERROR)).put("warnings", r.count(Severity.WARNING))
                .put("info", r.count(Severity.INFO))
                .put("suppressed", r.suppressed().size()).put("offByConfig", r.disabled().size())
                .put("skipped", r.inputs().skipped().size()).put("duplicates", r.inputs().duplicates().size())
                .put("inputErrors", r.errors().size())
                .put("servicesInInput", r.servicesSeen())
                .put("failOn", failOn.map(Severity::label).orElse("never")).put("exitCode", r.exitCode(failOn));
        ArrayNode fs = root.putArray("findings");
        for (Finding f : r.findings()) {
            fs.add(finding(f));
        }
        ArrayNode sup = root.putArray("suppressed");
        for (LintReport.Suppressed s : r.suppressed()) {
            sup.add(finding(s.finding()).put("annotation", s.annotation()).put("reason", s.reason()));
        }
        ArrayNode off = root.putArray("offByConfig");
        for (Finding f : r.disabled()) {
            off.add(finding(f));
        }
        r.config().file().ifPresent(f -> {
            ObjectNode c = root.putObject("config").put("file", f.toString());
            ObjectNode rs = c.putObject("rules");
            r.config().settings().forEach(rs::put);
            r.config().kubernetesVersion().ifPresent(v -> c.put("kubernetesVersion", v.toString()));
        });
        ArrayNode notices = root.putArray("notices");
        r.notices().forEach(notices::add);
        ArrayNode skipped = root.putArray("skipped");
        for (LintReport.Skipped s : r.inputs().skipped()) {
            skipped.addObject().put("name", s.name()).put("reason", s.reason());
        }
        ArrayNode dups = root.putArray("duplicates");
        for (LintReport.Duplicate d : r.inputs().duplicates()) {
            dups.addObject().put("object", d.object()).put("first", d.first()).put("again", d.again());
        }
        ArrayNode files = root.putArray("inputs");
        for (LintReport.FileSummary s : r.files()) {
            ObjectNode o = files.addObject().put("name", s.name()).put("workloads", s.workloads())
                    .put("containers", s.containers());
            ObjectNode other = o.putObject("otherKinds");
            s.otherKinds().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> other.put(e.getKey(), e.getValue()));
            s.error().ifPresent(e -> o.put("error", e));
        }
        return root;
    }

    private static ObjectNode finding(Finding f) {
        ObjectNode o = Json.MAPPER.createObjectNode();
        o.put("rule", f.rule()).put("name", f.name()).put("severity", f.severity().label()).put("file", f.file())
                .put("line", f.line()).put("object", f.object()).put("container", f.container()).put("field", f.field())
                .put("message", f.message()).put("fix", f.fix()).put("help", Rules.docUrl(f.rule()));
        return o;
    }

    private static ObjectNode sarif(LintReport r, String version) {
        ObjectNode root = Json.MAPPER.createObjectNode();
        root.put("$schema", "https://json.schemastore.org/sarif-2.1.0.json");
        root.put("version", "2.1.0");
        ObjectNode run = root.putArray("runs").addObject();
        ObjectNode driver = run.putObject("tool").putObject("driver");
        driver.put("name", "vitals-lint").put("semanticVersion", version);
        ArrayNode rules = driver.putArray("rules");
        Map<String, Integer> index = new LinkedHashMap<>();
        for (Rule rule : r.rules()) {
            index.put(rule.id(), index.size());
            ObjectNode o = rules.addObject();
            o.put("id", rule.id()).put("name", camel(rule.name()));
            o.putObject("shortDescription").put("text", rule.summary());
            o.putObject("fullDescription").put("text", "Fires when " + rule.premise() + ".");
            o.put("helpUri", rule.docUrl());
            o.putObject("help").put("text", "What, why, when it is wrong, and the fix: " + rule.docUrl());
            o.putObject("defaultConfiguration").put("level", level(r.severity(rule)))
                    .put("enabled", r.config().severity(rule).isPresent());
        }
        ArrayNode results = run.putArray("results");
        for (Finding f : r.findings()) {
            result(results, f, index);
        }
        // silenced findings stay in the log, marked (SARIF 2.1.0 §3.27.23, suppressions): code scanning shows them as such
        for (LintReport.Suppressed s : r.suppressed()) {
            result(results, s.finding(), index).putArray("suppressions").addObject().put("kind", "inSource")
                    .put("justification", s.annotation() + ": " + s.reason());
        }
        String configFile = r.config().file().map(p -> uri(p.toString())).orElse("");
        for (Finding f : r.disabled()) {
            result(results, f, index).putArray("suppressions").addObject().put("kind", "external")
                    .put("justification", "rule " + f.rule() + " is off in " + configFile);
        }
        ArrayNode notifications = run.putArray("invocations").addObject()
                .put("executionSuccessful", r.errors().isEmpty()).putArray("toolExecutionNotifications");
        for (LintReport.FileSummary s : r.errors()) {
            ObjectNode n = notifications.addObject();
            n.put("level", "error");
            n.putObject("message").put("text", s.error().get());
        }
        for (String n : r.notices()) {
            notifications.addObject().put("level", "warning").putObject("message").put("text", n);
        }
        for (LintReport.Skipped s : r.inputs().skipped()) {
            notifications.addObject().put("level", "note").putObject("message").put("text", s.name() + ": skipped: "
                    + s.reason());
        }
        for (LintReport.Duplicate d : r.inputs().duplicates()) {
            notifications.addObject().put("level", "note").putObject("message").put("text", d.again() + ": duplicate "
                    + d.object() + " (linted once, at " + d.first() + ")");
        }
        return root;
    }

    private static ObjectNode result(ArrayNode results, Finding f, Map<String, Integer> index) {
        ObjectNode o = results.addObject();
        o.put("ruleId", f.rule());
        Integer i = index.get(f.rule());
        if (i != null) {
            o.put("ruleIndex", i);
        }
        o.put("level", level(f.severity()));
        o.putObject("message").put("text", sentence((f.object().isEmpty() ? "" : f.subject() + ": ") + f.message())
                + (f.fix().isEmpty() ? "" : " Fix: " + sentence(f.fix())));
        ObjectNode phys = o.putArray("locations").addObject().putObject("physicalLocation");
        phys.putObject("artifactLocation").put("uri", uri(f.file()));
        phys.putObject("region").put("startLine", Math.max(1, f.line()));
        o.putObject("partialFingerprints").put("vitalsLint/v1", Integer.toHexString((f.rule() + f.object()
                + f.container() + f.field()).hashCode()));
        return o;
    }

    private static String uri(String file) {
        String u = file.replace('\\', '/');
        while (u.startsWith("./")) {
            u = u.substring(2);
        }
        return u.equals("-") ? "stdin" : u;
    }

    private static String camel(String kebab) {
        StringBuilder b = new StringBuilder();
        boolean up = true;
        for (char c : kebab.toCharArray()) {
            if (c == '-') {
                up = true;
            } else {
                b.append(up ? Character.toUpperCase(c) : c);
                up = false;
            }
        }
        return b.toString();
    }

    private static String level(Severity s) {
        return s == Severity.ERROR ? "error" : s == Severity.WARNING ? "warning" : "note";
    }

    private static void junit(LintReport r, Optional<Severity> failOn, Writer out) throws IOException {
        out.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        int tests = 0;
        int failures = 0;
        StringBuilder body = new StringBuilder();
        for (LintReport.FileSummary s : suites(r)) {
            Map<String, List<Finding>> byCase = new LinkedHashMap<>();
            for (Finding f : r.findings()) {
                if (f.file().equals(s.name())) {
                    byCase.computeIfAbsent(f.subject(), k -> new ArrayList<>()).add(f);
                }
            }
            int suiteFailures = 0;
            StringBuilder cases = new StringBuilder();
            if (s.error().isPresent()) {
                cases.append("    <testcase classname=\"").append(xml(s.name())).append("\" name=\"read\">\n")
                        .append("      <error message=\"").append(xml(s.error().get())).append("\"/>\n    </testcase>\n");
                suiteFailures++;
            }
            for (Map.Entry<String, List<Finding>> e : byCase.entrySet()) {
                if (testCase(cases, s.name(), e.getKey(), e.getValue(), failOn)) {
                    suiteFailures++;
                }
            }
            int suiteTests = byCase.size() + (s.error().isPresent() ? 1 : 0);
            if (suiteTests == 0) {
                cases.append("    <testcase classname=\"").append(xml(s.name())).append("\" name=\"")
                        .append(xml(s.workloads() == 0 ? "no workloads" : s.containers() + " container(s), no findings"))
                        .append("\"/>\n");
                suiteTests = 1;
            }
            tests += suiteTests;
            failures += suiteFailures;
            body.append("  <testsuite name=\"").append(xml(s.name())).append("\" tests=\"").append(suiteTests)
                    .append("\" failures=\"").append(suiteFailures).append("\" errors=\"0\">\n").append(cases)
                    .append("  </testsuite>\n");
        }
        out.write("<testsuites name=\"vitals lint\" tests=\"" + tests + "\" failures=\"" + failures + "\">\n");
        out.write(body.toString());
        out.write("</testsuites>\n");
    }

    /** @return one suite per file read, then one per file a finding names that was not read (a rule's other file) */
    private static List<LintReport.FileSummary> suites(LintReport r) {
        List<LintReport.FileSummary> suites = new ArrayList<>(r.files());
        java.util.Set<String> names = new java.util.HashSet<>();
        r.files().forEach(f -> names.add(f.name()));
        for (Finding f : r.findings()) {
            if (names.add(f.file())) {
                suites.add(new LintReport.FileSummary(f.file(), 0, 0, Map.of(), Optional.empty()));
            }
        }
        return suites;
    }

    /**
     * Appends one subject's test case: a failure with the findings at or above {@code failOn}, the
     * others as its output.
     *
     * @return whether the case failed
     */
    private static boolean testCase(StringBuilder cases, String file, String subject, List<Finding> findings,
            Optional<Severity> failOn) {
        List<Finding> failing = new ArrayList<>();
        List<Finding> other = new ArrayList<>();
        for (Finding f : findings) {
            (failOn.isPresent() && f.severity().compareTo(failOn.get()) >= 0 ? failing : other).add(f);
        }
        cases.append("    <testcase classname=\"").append(xml(file)).append("\" name=\"").append(xml(subject)).append("\">\n");
        if (!failing.isEmpty()) {
            cases.append("      <failure type=\"").append(xml(failing.get(0).rule())).append("\" message=\"")
                    .append(xml(failing.size() + " finding(s): " + failing.get(0).message())).append("\">");
            failing.forEach(f -> cases.append(xml(junitLine(f))));
            cases.append("</failure>\n");
        }
        if (!other.isEmpty()) {
            cases.append("      <system-out>");
            other.forEach(f -> cases.append(xml(junitLine(f))));
            cases.append("</system-out>\n");
        }
        cases.append("    </testcase>\n");
        return !failing.isEmpty();
    }

    private static String junitLine(Finding f) {
        return f.location() + ": " + f.severity().label() + " " + f.rule() + " " + f.name() + ": " + f.message() + "\n  fix: " + f.fix()
                + "\n";
    }

    private static String xml(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '<':
                    b.append("&lt;");
                    break;
                case '>':
                    b.append("&gt;");
                    break;
                case '&':
                    b.append("&amp;");
                    break;
                case '"':
                    b.append("&quot;");
                    break;
                default:
                    if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') {
                        b.append(' ');
                    } else {
                        b.append(c);
                    }
            }
        }
        return b.toString();
    }
}
