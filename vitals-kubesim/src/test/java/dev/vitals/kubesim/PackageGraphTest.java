package dev.vitals.kubesim;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The simulator's package graph (docs/DESIGN.md, "vitals-kubesim's layers"): no cycle, the kubelet
 * model at the bottom owning its ports, the API package above the engine's parts and below the tools.
 * A change that breaks a layer fails here with the offending dependency named.
 */
class PackageGraphTest {

    private static final String BASE = "dev.vitals.kubesim";
    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(BASE);
    }

    @Test
    void subpackagesHaveNoCycle() {
        slices().matching(BASE + ".(*)..").should().beFreeOfCycles().check(classes);
    }

    /** The API package (Simulation) sits above every engine part: none of them may reach back into it. */
    @Test
    void engineLayersNeverDependOnTheApiPackage() {
        noClasses().that().resideInAnyPackage(engine())
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
                        BASE + ".scenario..", BASE + ".result..", BASE + ".manifest..", BASE + ".lint..",
                        BASE + ".report..", BASE + ".fleet..", BASE + ".replay..", BASE + ".cli..")
                .check(classes);
    }

    /** Only the command line depends on the command line. */
    @Test
    void nothingButTheCliDependsOnTheCli() {
        noClasses().that().resideOutsideOfPackage(BASE + ".cli..")
                .should().dependOnClassesThat().resideInAPackage(BASE + ".cli..")
                .check(classes);
    }

    /**
     * The module exports the API (a simulation, its results, manifest reading, lint's findings) and
     * the CLI, nothing else: the real probers, YAML limits, reports and the fleet/replay engines stay
     * internal.
     */
    @Test
    void moduleExportsTheApiAndTheCliOnly() throws IOException {
        ModuleDescriptor module;
        try (InputStream in = Files.newInputStream(Path.of("target/classes/module-info.class"))) {
            module = ModuleDescriptor.read(in);
        }
        assertThat(module.name()).isEqualTo("dev.vitals.kubesim");
        Set<String> exported = module.exports().stream()
                .filter(e -> !e.isQualified())
                .map(ModuleDescriptor.Exports::source)
                .map(p -> p.equals(BASE) ? "" : p.substring(BASE.length() + 1))
                .collect(Collectors.toSet());
        assertThat(exported).containsExactlyInAnyOrder(
                "", "input", "model", "scenario", "fault", "runtime", "result", "manifest", "lint", "cli");
        for (String internal : new String[] {"probe", "yaml", "report", "fleet", "replay"}) {
            assertThat(Path.of("target/classes/dev/vitals/kubesim", internal)).isDirectory();
        }
    }

    /**
     * No public type that only tests use: every public top-level type of the main code is used by main
     * code outside its own package (bytecode dependencies, not names in comments), or is named here:
     * the two main classes users run and the lint library's values (a report's findings, what a rule
     * checks), which the CLI only passes on. A type only its own package and the tests use is
     * package-private, and its tests live in its package.
     */
    @Test
    void everyPublicTypeHasAUserOutsideItsPackage() {
        Set<String> entryPoints = Set.of(BASE + ".cli.VitalsCommand", // the jar's Main-Class
                BASE + ".fleet.SyntheticReplica", // java -cp vitals.jar ...SyntheticReplica (docs/fleet.md)
                BASE + ".lint.Finding", BASE + ".lint.Target"); // LintReport.findings(), Rule.check(Target, ...)
        List<String> unused = classes.stream()
                .filter(c -> c.isTopLevelClass() && c.getModifiers().contains(JavaModifier.PUBLIC))
                .filter(c -> !entryPoints.contains(c.getName()))
                .filter(c -> c.getDirectDependenciesToSelf().stream()
                        .noneMatch(d -> !d.getOriginClass().getPackageName().equals(c.getPackageName())))
                .map(JavaClass::getName)
                .sorted()
                .toList();
        assertThat(unused).as("public types with no user outside their package in main code").isEmpty();
    }

    private static String[] engine() {
        return new String[] {BASE + ".input..", BASE + ".model..", BASE + ".probe..", BASE + ".runtime..",
            BASE + ".fault..", BASE + ".yaml..", BASE + ".manifest..", BASE + ".result..", BASE + ".scenario.."};
    }
}
