package dev.vitals.kubesim.lint;

import dev.vitals.kubesim.ModuleGraph;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The lint module's place (docs/DESIGN.md sections 7 and 7.4): static checks that read manifests and
 * replay the kubelet model on virtual time, never a run (a simulation, its scenario, faults or
 * result); exported to every user (vitals-maven-plugin's {@code vitals:lint}).
 */
class LintPackageGraphTest {

    private static final String BASE = "dev.vitals.kubesim";
    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = ModuleGraph.mainClasses(BASE + ".lint");
    }

    @Test
    void lintNeverRunsASimulation() {
        noClasses().that().resideInAPackage(BASE + ".lint..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        BASE + ".scenario..", BASE + ".result..", BASE + ".fault..")
                .check(classes);
    }

    @Test
    void moduleExportsLintAndReadsTheCoreTransitively() throws IOException {
        ModuleDescriptor module = ModuleGraph.thisModule();
        assertThat(module.name()).isEqualTo(BASE + ".lint");
        assertThat(module.exports()).singleElement().satisfies(e -> {
            assertThat(e.source()).isEqualTo(BASE + ".lint");
            assertThat(e.isQualified()).isFalse();
        });
        // its API speaks the core's types (model.KubernetesVersion, input.InvalidInputException)
        assertThat(module.requires()).anySatisfy(r -> {
            assertThat(r.name()).isEqualTo(BASE);
            assertThat(r.modifiers()).contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE);
        });
        assertThat(module.requires()).extracting(ModuleDescriptor.Requires::name)
                .doesNotContain("jdk.httpserver", BASE + ".fleet", BASE + ".cli");
    }
}
