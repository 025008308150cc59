package dev.vitals.kubesim.lint;

import static dev.vitals.kubesim.lint.Manifests.deployment;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Inputs honestly read: non-manifests, Kustomize files and patches, objects written twice. */
class InputClassifierTest {
    /** Probes on / (rule L26 fires on each without a Service or a known runtime): a linted copy has findings. */
    private static final String PROBES = "        ports:\n        - containerPort: 8080\n"
            + "        livenessProbe:\n          httpGet: {path: /, port: 8080}\n"
            + "        readinessProbe:\n          httpGet: {path: /, port: 8080}\n";
    /** A strategic-merge patch: no selector, no image; its probes would otherwise be linted as a whole workload. */
    private static final String PATCH = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n"
            + "    spec:\n      containers:\n      - name: app\n" + PROBES;

    private static LintReport run(List<String> args, boolean allowEmpty) {
        List<LintInput> in = LintInput.collect(args, new ByteArrayInputStream(new byte[0]));
        return new Linter(Rules.all(), LintContext.empty(), Optional.empty()).allowEmpty(allowEmpty).lint(in);
    }

    private static Path write(Path dir, String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        return p;
    }

    @Test
    void aNamedFileThatIsNoManifestIsBadInputUnlessAllowEmpty(@TempDir Path dir) throws Exception {
        Path passwd = write(dir, "passwd", "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n");
        Path json = write(dir, "package.json", "{\"name\": \"app\", \"version\": \"1.0.0\"}\n");
        Path values = write(dir, "values.yaml", "replicaCount: 2\nimage: {repository: nginx}\n");
        Path empty = write(dir, "empty.yaml", "");
        for (Path p : List.of(passwd, json, values, empty)) {
            LintReport r = run(List.of(p.toString()), false);
            assertThat(r.exitCode(Optional.empty())).as(p.toString()).isEqualTo(2);
            assertThat(r.errors()).singleElement().satisfies(f -> assertThat(f.error().orElseThrow())
                    .startsWith(p + ": not a Kubernetes manifest: ").endsWith("--allow-empty accepts an input without objects")
                    .doesNotContain("\n"));
            assertThat(run(List.of(p.toString()), true).exitCode(Optional.empty())).as(p.toString()).isZero();
        }
        assertThat(run(List.of(passwd.toString()), false).errors().get(0).error().orElseThrow())
                .contains("no document has a kind (not an object: string)");
        assertThat(run(List.of(empty.toString()), false).errors().get(0).error().orElseThrow()).contains(": no documents;");
    }

    @Test
    void aDirectorysNonManifestsAndJsonPatchesAreSkippedAndListed(@TempDir Path dir) throws Exception {
        write(dir, "deploy.yaml", deployment(PROBES));
        write(dir, "values.yaml", "replicaCount: 2\n");
        write(dir, "ops.yaml", "- op: replace\n  path: /spec/replicas\n  value: 3\n");
        LintReport r = run(List.of(dir.toString()), false);
        assertThat(r.errors()).isEmpty();
        assertThat(r.workloads()).isEqualTo(1);
        assertThat(r.inputs().skipped()).extracting(LintReport.Skipped::name, LintReport.Skipped::reason).containsExactlyInAnyOrder(
                org.assertj.core.groups.Tuple.tuple(dir.resolve("values.yaml").toString(),
                        "not a Kubernetes manifest (no document has a kind)"),
                org.assertj.core.groups.Tuple.tuple(dir.resolve("ops.yaml").toString(), "a JSON patch (RFC 6902), applied by Kustomize"));
        StringWriter text = new StringWriter();
        LintFormat.TEXT.write(r, Optional.of(Severity.ERROR), "t", text);
        assertThat(text.toString()).as("a skipped input is said once, as skipped")
                .doesNotContain(dir.resolve("values.yaml") + ": no workloads").doesNotContain(dir.resolve("ops.yaml") + ": no workloads");
        assertThat(text.toString()).contains(dir.resolve("values.yaml") + ": skipped: not a Kubernetes manifest")
                .contains(", 2 skipped; no Service in the input (fails on error)");
    }

    @Test
    void kustomizationFilesAndThePatchesTheyListAreSkippedAndListed(@TempDir Path dir) throws Exception {
        write(dir, "base/deploy.yaml", deployment(PROBES));
        write(dir, "overlay/kustomization.yaml", "resources: [../base]\npatchesStrategicMerge:\n- probes.yaml\n"
                + "patches:\n- path: more/replicas.yaml\n- patch: |-\n    - op: remove\n      path: /x\n");
        write(dir, "overlay/probes.yaml", deployment(PROBES)); // a full object, but listed as a patch
        write(dir, "overlay/more/replicas.yaml", deployment(PROBES));
        LintReport r = run(List.of(dir.toString()), false);
        assertThat(r.errors()).isEmpty();
        assertThat(r.workloads()).isEqualTo(1);
        assertThat(r.inputs().skipped()).extracting(LintReport.Skipped::name).containsExactlyInAnyOrder(
                dir.resolve("overlay/kustomization.yaml").toString(), dir.resolve("overlay/probes.yaml").toString(),
                dir.resolve("overlay/more/replicas.yaml").toString());
        assertThat(r.inputs().skipped()).filteredOn(s -> s.name().endsWith("probes.yaml")).singleElement()
                .satisfies(s -> assertThat(s.reason()).startsWith("a Kustomize patch (patchesStrategicMerge of "));
        // a patch named alone is recognised by the kustomization beside it
        LintReport alone = run(List.of(dir.resolve("overlay/probes.yaml").toString()), false);
        assertThat(alone.workloads()).isZero();
        assertThat(alone.inputs().skipped()).hasSize(1);
        assertThat(alone.exitCode(Optional.empty())).isZero();
    }

    @Test
    void aStrategicMergePatchNoKustomizationListsIsSkippedByItsShape(@TempDir Path dir) throws Exception {
        Path p = write(dir, "probes-patch.yaml", PATCH);
        LintReport r = run(List.of(p.toString()), false);
        assertThat(r.findings()).isEmpty();
        assertThat(r.errors()).isEmpty();
        assertThat(r.workloads()).isZero();
        assertThat(r.inputs().skipped()).singleElement().satisfies(s -> {
            assertThat(s.name()).isEqualTo(p + ":1 Deployment/web");
            assertThat(s.reason()).contains("no spec.selector").contains("no container with an image");
        });
        // the same object with its selector and image is a workload and is linted
        assertThat(run(List.of(write(dir, "full.yaml", deployment(PROBES)).toString()), false).findings()).isNotEmpty();
    }

    @Test
    void anObjectWrittenInTwoFilesIsLintedOnceAndTheCopyNoted(@TempDir Path dir) throws Exception {
        Path a = write(dir, "a.yaml", deployment(PROBES));
        Path b = write(dir, "b.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n---\n" + deployment(PROBES));
        Path other = write(dir, "c.yaml", deployment(PROBES).replace("metadata:\n  name: web\n",
                "metadata:\n  name: web\n  namespace: shop\n"));
        LintReport once = run(List.of(a.toString()), false);
        assertThat(once.findings()).isNotEmpty();
        LintReport r = run(List.of(a.toString(), b.toString(), other.toString()), false);
        assertThat(r.workloads()).isEqualTo(2); // a's and c's (another namespace); b's copy is not linted
        assertThat(r.findings()).hasSize(once.findings().size() * 2);
        assertThat(r.findings()).noneMatch(f -> f.file().equals(b.toString()));
        assertThat(r.inputs().duplicates()).singleElement().satisfies(d -> {
            assertThat(d.object()).isEqualTo("Deployment/default/web");
            assertThat(d.first()).isEqualTo(a + ":1");
            assertThat(d.again()).isEqualTo(b + ":5");
        });
        StringWriter text = new StringWriter();
        LintFormat.TEXT.write(r, Optional.of(Severity.ERROR), "t", text);
        assertThat(text.toString()).contains(b + ":5: duplicate Deployment/default/web (linted once, at " + a + ":1)")
                .contains(", 1 duplicate (fails on error)");
    }

    @Test
    void aCopyWithItsLabelsInAnotherOrderIsStillACopy(@TempDir Path dir) throws Exception {
        // YAML mapping key order has no meaning: labels {tier, team} and {team, tier} are one object
        Path a = write(dir, "a.yaml", deployment(PROBES).replace("metadata:\n  name: web\n",
                "metadata:\n  name: web\n  labels:\n    tier: front\n    team: shop\n"));
        Path b = write(dir, "b.yaml", deployment(PROBES).replace("metadata:\n  name: web\n",
                "metadata:\n  labels:\n    team: shop\n    tier: front\n  name: web\n"));
        LintReport r = run(List.of(a.toString(), b.toString()), false);
        assertThat(r.workloads()).isEqualTo(1);
        assertThat(r.inputs().duplicates()).singleElement().satisfies(d -> {
            assertThat(d.first()).isEqualTo(a + ":1");
            assertThat(d.again()).isEqualTo(b + ":1");
        });
        // a label's value differing is not a copy: both linted
        Path c = write(dir, "c.yaml", Files.readString(b).replace("tier: front", "tier: back"));
        assertThat(run(List.of(a.toString(), c.toString()), false).inputs().duplicates()).isEmpty();
    }

    @Test
    void twoManifestsOfOneIdentityWithOtherFieldsAreBothLinted(@TempDir Path dir) throws Exception {
        // two applications' Deployment/web in one tree (or two environments' variants): not a copy, nothing hidden
        Path a = write(dir, "shop/deploy.yaml", deployment(PROBES));
        Path b = write(dir, "blog/deploy.yaml", deployment(PROBES).replace("example/web:1.0", "example/blog:2.0"));
        LintReport r = run(List.of(dir.toString()), false);
        assertThat(r.workloads()).isEqualTo(2);
        assertThat(r.inputs().duplicates()).isEmpty();
        assertThat(r.findings()).anyMatch(f -> f.file().equals(a.toString())).anyMatch(f -> f.file().equals(b.toString()));
        assertThat(r.findings()).hasSize(run(List.of(a.toString()), false).findings().size() * 2);
    }
}
