package dev.vitals.kubesim;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.vitals.kubesim.cli.VitalsCommand;
import dev.vitals.kubesim.fleet.SyntheticReplica;
import dev.vitals.kubesim.lint.Linter;
import dev.vitals.kubesim.runtime.CodeSources;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The simulator's package graph across its four modules (docs/DESIGN.md section 7, "vitals-kubesim's
 * layers"): the main classes of vitals-kubesim-core, -fleet, -lint and this module, from the class
 * path. No cycle, nothing but the command line uses it, every public type has a user, and only the
 * fleet module reads the JDK's HTTP server. Each module's own layers and exports are its own test
 * (CorePackageGraphTest, FleetPackageGraphTest, LintPackageGraphTest). A change that breaks a layer
 * fails with the offending dependency named.
 */
class PackageGraphTest {

    private static final String BASE = "dev.vitals.kubesim";
    private static JavaClasses classes;

    /** The four modules' main classes, by one class of each. */
    private static final Map<String, Class<?>> MODULES = Map.of(BASE, Simulation.class, BASE + ".fleet", SyntheticReplica.class,
            BASE + ".lint", Linter.class, BASE + ".cli", VitalsCommand.class);

    @BeforeAll
    static void importMainClasses() {
        // test classes: target/test-classes, or the core's and fleet's test-jars once packaged
        Pattern testJar = Pattern.compile(".*-tests\\.jar!/.*");
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.matches(testJar))
                .importPackages(BASE);
    }

    /** The rules below see all four modules (a missing one would let them pass on less). */
    @Test
    void importsTheMainClassesOfAllFourModules() {
        for (Class<?> c : MODULES.values()) {
            assertThat(classes.contain(c)).as(c.getName()).isTrue();
        }
        for (Class<?> test : new Class<?>[] {PackageGraphTest.class, Rig.class, dev.vitals.kubesim.fleet.FleetTestServers.class}) {
            assertThat(classes.contain(test)).as(test.getName()).isFalse();
        }
    }

    @Test
    void subpackagesHaveNoCycle() {
        slices().matching(BASE + ".(*)..").should().beFreeOfCycles().check(classes);
    }

    /** Only the command line depends on the command line. */
    @Test
    void nothingButTheCliDependsOnTheCli() {
        noClasses().that().resideOutsideOfPackage(BASE + ".cli..")
                .should().dependOnClassesThat().resideInAPackage(BASE + ".cli..")
                .check(classes);
    }

    /**
     * This module exports the command ({@code cli.VitalsCommand}, opened to picocli), nothing else:
     * the replay catalog stays internal.
     */
    @Test
    void moduleExportsTheCliOnly() throws IOException {
        ModuleDescriptor module = ModuleGraph.thisModule();
        assertThat(module.name()).isEqualTo(BASE + ".cli");
        assertThat(module.exports()).singleElement().satisfies(e -> {
            assertThat(e.source()).isEqualTo(BASE + ".cli");
            assertThat(e.isQualified()).isFalse();
        });
        assertThat(module.opens()).singleElement().satisfies(o -> assertThat(o.targets()).containsExactly("info.picocli"));
        assertThat(Path.of("target/classes/dev/vitals/kubesim/replay")).isDirectory();
    }

    /**
     * Across the modules: only the fleet reads the JDK's HTTP server (its synthetic replicas), and
     * every qualified export names one of the four modules (javac only warns about an unknown one,
     * a warning the core's and the fleet's module-info suppress: the siblings are built after them).
     */
    @Test
    void onlyTheFleetReadsTheHttpServerAndQualifiedExportsNameSiblings() throws IOException {
        for (Map.Entry<String, Class<?>> m : MODULES.entrySet()) {
            ModuleDescriptor module = descriptorOf(m.getValue());
            assertThat(module.name()).isEqualTo(m.getKey());
            boolean readsHttpServer = module.requires().stream().anyMatch(r -> r.name().equals("jdk.httpserver"));
            assertThat(readsHttpServer).as(module.name() + " requires jdk.httpserver").isEqualTo(m.getKey().equals(BASE + ".fleet"));
            for (ModuleDescriptor.Exports e : module.exports()) {
                assertThat(MODULES.keySet()).as(module.name() + ": exports " + e.source() + " to").containsAll(e.targets());
            }
        }
    }

    /** The module-info of the module a class was loaded from: a classes directory or a jar. */
    private static ModuleDescriptor descriptorOf(Class<?> c) throws IOException {
        Path source = CodeSources.codeSourceOf(c).orElseThrow();
        if (Files.isDirectory(source)) {
            try (InputStream in = Files.newInputStream(source.resolve("module-info.class"))) {
                return ModuleDescriptor.read(in);
            }
        }
        try (FileSystem jar = FileSystems.newFileSystem(URI.create("jar:" + source.toUri()), Map.of());
                InputStream in = Files.newInputStream(jar.getPath("module-info.class"))) {
            return ModuleDescriptor.read(in);
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

}
