package dev.vitals.kubesim.fleet;

import dev.vitals.kubesim.ModuleGraph;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
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
        classes = ModuleGraph.mainClasses(BASE + ".fleet");
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
        ModuleDescriptor module = ModuleGraph.thisModule();
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
