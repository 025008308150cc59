package dev.vitals.kubesim.fleet;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The fleet module's place (docs/DESIGN.md section 7): on the core library below it, exported to the
 * command line only, and the one simulator module that reads the JDK's HTTP server, which only the
 * synthetic replica (a child process of its own) uses.
 */
class FleetPackageGraphTest {

    private static final String BASE = "dev.vitals.kubesim";
    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(BASE + ".fleet");
    }

    @Test
    void onlyTheSyntheticReplicaUsesTheJdkHttpServer() {
        noClasses().that().resideInAPackage(BASE + ".fleet..")
                .and().haveNameNotMatching(Pattern.quote(SyntheticReplica.class.getName()) + "(\\$.*)?")
                .should().dependOnClassesThat().resideInAPackage("com.sun.net.httpserver..")
                .check(classes);
    }

    @Test
    void moduleIsExportedToTheCommandLineOnlyAndAloneReadsTheHttpServer() throws IOException {
        ModuleDescriptor module;
        try (InputStream in = Files.newInputStream(Path.of("target/classes/module-info.class"))) {
            module = ModuleDescriptor.read(in);
        }
        assertThat(module.name()).isEqualTo(BASE + ".fleet");
        assertThat(module.exports()).singleElement().satisfies(e -> {
            assertThat(e.source()).isEqualTo(BASE + ".fleet");
            assertThat(e.targets()).isEqualTo(Set.of(BASE + ".cli"));
        });
        assertThat(module.requires()).extracting(ModuleDescriptor.Requires::name)
                .contains(BASE, "jdk.httpserver")
                .doesNotContain(BASE + ".lint", BASE + ".cli");
    }
}
