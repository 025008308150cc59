package dev.vitals.kubesim;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The core library's package graph (docs/DESIGN.md section 7, "vitals-kubesim's layers"): no cycle,
 * the kubelet model at the bottom owning its ports, the API package above the engine's parts, and
 * what the module exports. The rules across the four simulator modules (nothing but the command line
 * uses it, every public type has a user) are vitals-kubesim's PackageGraphTest.
 */
class CorePackageGraphTest {

    private static final String BASE = "dev.vitals.kubesim";
    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = ModuleGraph.mainClasses(BASE);
    }

    @Test
    void subpackagesHaveNoCycle() {
        slices().matching(BASE + ".(*)..").should().beFreeOfCycles().check(classes);
    }

    /** The API package (Simulation) sits above every engine part: none of them may reach back into it. */
    @Test
    void engineLayersNeverDependOnTheApiPackage() {
        noClasses().that().resideInAnyPackage(BASE + ".input..", BASE + ".model..", BASE + ".probe..",
                        BASE + ".runtime..", BASE + ".fault..", BASE + ".yaml..", BASE + ".manifest..",
                        BASE + ".result..", BASE + ".scenario..")
                .should().dependOnClassesThat().resideInAPackage(BASE)
                .check(classes);
    }

    /**
     * The kubelet model owns the ports it drives (ProbeExecutor, ContainerRuntime, the clock from
     * vitals-core/vitals-testing) and imports nothing else of the simulator but its input errors.
     */
    @Test
    void kubeletModelImportsNothingAboveIt() {
        classes().that().resideInAPackage(BASE + ".model..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(
                        BASE + ".model..", BASE + ".input..", "java..", "dev.vitals", "dev.vitals.core..",
                        "dev.vitals.testing..")
                .check(classes);
    }

    /** The real probers and the real container runtime implement the model's ports; they do not know each other's callers. */
    @Test
    void probersAndRuntimeDependOnlyOnTheModel() {
        noClasses().that().resideInAnyPackage(BASE + ".probe..", BASE + ".runtime..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        BASE + ".scenario..", BASE + ".result..", BASE + ".manifest..", BASE + ".report..")
                .check(classes);
    }

    /**
     * The module exports the API (a simulation, its results, manifest reading) to everyone; the real
     * probers, YAML limits and reports only to the simulator modules that build on them. It needs no
     * JDK HTTP server (the fleet module alone does).
     */
    @Test
    void moduleExportsTheApiAndItsInternalsOnlyToTheSiblings() throws IOException {
        ModuleDescriptor module = ModuleGraph.thisModule();
        assertThat(module.name()).isEqualTo(BASE);
        Set<String> exported = module.exports().stream()
                .filter(e -> !e.isQualified())
                .map(e -> relative(e.source()))
                .collect(Collectors.toSet());
        assertThat(exported).containsExactlyInAnyOrder(
                "", "input", "model", "scenario", "fault", "runtime", "result", "manifest");
        Map<String, Set<String>> qualified = module.exports().stream()
                .filter(ModuleDescriptor.Exports::isQualified)
                .collect(Collectors.toMap(e -> relative(e.source()), ModuleDescriptor.Exports::targets));
        assertThat(qualified).containsOnly(
                Map.entry("probe", Set.of(BASE + ".fleet", BASE + ".lint", BASE + ".cli")),
                Map.entry("yaml", Set.of(BASE + ".fleet", BASE + ".lint")),
                Map.entry("report", Set.of(BASE + ".fleet", BASE + ".cli")));
        assertThat(module.requires()).extracting(ModuleDescriptor.Requires::name).doesNotContain("jdk.httpserver");
    }

    private static String relative(String pkg) {
        return pkg.equals(BASE) ? "" : pkg.substring(BASE.length() + 1);
    }
}
