package dev.vitals.kubesim.lint;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Precision on real manifests: {@code corpus/} holds excerpts written in the shape of public
 * repositories' manifests (each names its source: microservices-demo, bank-of-anthos,
 * spring-petclinic-cloud, spring-cloud-kubernetes, micronaut-kubernetes, Keycloak, Coherence,
 * Camel K, Kubernetes examples, Istio samples, Dapr, Quarkus quickstarts) — their workloads'
 * containers, probes, resources and Services, not copies of the files. {@code
 * corpus-verdicts.tsv} judges every finding by hand: TP (a careful SRE would change it), FP (a
 * false positive of this or an earlier version), TP-before (a true finding an earlier version
 * reported that is now reported under another rule). The test fails when a judged false positive
 * comes back, a true positive disappears, or a finding is not judged; it prints the precision.
 */
class LintCorpusTest {
    /** The floor issue 36 sets; measured 42 of 42 on 2026-12-03, 40 of 40 with copies linted once. */
    private static final double MIN_PRECISION = 0.85;

    private record Verdict(String verdict, String reason) {
    }

    @Test
    void everyFindingOnTheCorpusIsJudgedAndPrecisionHolds() throws Exception {
        Path dir = resource("corpus");
        Map<String, Verdict> verdicts = new LinkedHashMap<>();
        for (String line : Files.readAllLines(resource("corpus-verdicts.tsv"), StandardCharsets.UTF_8)) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            String[] c = line.split("\t");
            verdicts.put(key(c[0], c[1], c[2], c[3]), new Verdict(c[4], c[5]));
        }
        List<LintInput> inputs = LintInput.collect(List.of(dir.toString()), new ByteArrayInputStream(new byte[0]));
        assertThat(inputs).hasSizeGreaterThanOrEqualTo(50);
        LintReport r = new Linter(Rules.defaults(), LintContext.empty(), Optional.empty()).lint(inputs);
        // how many workloads run a JVM, as the rules see them (issue 36: 20 or more)
        java.util.Set<String> jvms = new java.util.TreeSet<>();
        Rule count = new BaseRule("T0", "count", Severity.INFO, "test", "test", BaseRule.Needs.MANIFEST) {
            @Override
            public void check(Target t, LintContext ctx, java.util.function.Consumer<Finding> out) {
                if (t.runtime().jvm()) {
                    jvms.add(t.file() + " " + t.object());
                }
            }
        };
        new Linter(List.of(count), LintContext.empty(), Optional.empty()).lint(inputs);
        assertThat(r.errors()).isEmpty();
        List<String> unjudged = new ArrayList<>();
        List<String> falsePositives = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        int truePositives = 0;
        for (Finding f : r.findings()) {
            String k = key(Path.of(f.file()).getFileName().toString(), f.object(), f.container(), f.rule());
            seen.add(k);
            Verdict v = verdicts.get(k);
            if (v == null) {
                unjudged.add(k + ": " + f.message());
            } else if (v.verdict().equals("FP")) {
                falsePositives.add(k + " (" + v.reason() + ")");
            } else {
                truePositives++;
            }
        }
        // an object copied into two excerpts (every field equal) is linted once, at its first copy, and the copy listed:
        // a judged finding on the copy is reported there, not lost
        Map<String, String> copyOf = new LinkedHashMap<>();
        for (LintReport.Duplicate d : r.inputs().duplicates()) {
            String[] id = d.object().split("/", 3); // Kind/namespace/name
            String object = id[0] + "/" + id[2];
            copyOf.put(fileName(d.again()) + "|" + object, fileName(d.first()) + "|" + object);
        }
        List<String> lost = new ArrayList<>();
        verdicts.forEach((k, v) -> {
            String[] c = k.split("\\|");
            String first = copyOf.get(c[0] + "|" + c[1]);
            boolean atFirstCopy = first != null && seen.contains(first + "|" + c[2] + "|" + c[3]);
            if (v.verdict().equals("TP") && !seen.contains(k) && !atFirstCopy) {
                lost.add(k + " (" + v.reason() + ")");
            }
        });
        double precision = r.findings().isEmpty() ? 1 : (double) truePositives / r.findings().size();
        System.out.printf("lint corpus: %d inputs, %d workloads (%d JVMs, %d copies linted once), %d findings, %d true:"
                + " precision %.1f %%%n", inputs.size(), r.workloads(), jvms.size(), r.inputs().duplicates().size(),
                r.findings().size(), truePositives, 100 * precision);
        assertThat(unjudged).as("findings nobody judged: add them to corpus-verdicts.tsv").isEmpty();
        assertThat(falsePositives).as("judged false positives that came back").isEmpty();
        assertThat(lost).as("judged true positives that disappeared").isEmpty();
        assertThat(precision).isGreaterThanOrEqualTo(MIN_PRECISION);
        assertThat(r.workloads()).isGreaterThanOrEqualTo(70);
        assertThat(jvms).hasSizeGreaterThanOrEqualTo(20);
        if (Boolean.getBoolean("lint.corpus.list")) {
            jvms.forEach(System.out::println);
        }
    }

    /** @return the file name of a {@code path:line} */
    private static String fileName(String at) {
        return Path.of(at.substring(0, at.lastIndexOf(':'))).getFileName().toString();
    }

    private static String key(String file, String object, String container, String rule) {
        return file + "|" + object + "|" + container + "|" + rule;
    }

    private static Path resource(String name) throws URISyntaxException {
        return Path.of(LintCorpusTest.class.getResource(name).toURI());
    }
}
