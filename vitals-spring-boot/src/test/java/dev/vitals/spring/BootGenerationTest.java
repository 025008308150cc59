package dev.vitals.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.context.support.GenericApplicationContext;

/**
 * The generation check, compiled and run in each Spring module against its own Boot (a shared
 * test source). The start of a real application with the wrong module is tested by the examples
 * ({@code OtherGenerationTest}).
 */
class BootGenerationTest {

    @Test
    void findsTheGenerationThisModuleIsBuiltFor() {
        assertThat(BootGeneration.running()).isEqualTo(ModuleInfo.BOOT_GENERATION);
        assertThat(BootGeneration.mismatch(BootGeneration.running(), BootGeneration.version())).isNull();
        GenericApplicationContext ctx = new GenericApplicationContext();
        new BootGeneration.Check().initialize(ctx); // does not throw
    }

    @Test
    void theOtherGenerationGetsOneLineNamingTheRightModule() {
        int other = ModuleInfo.BOOT_GENERATION == 4 ? 3 : 4;
        String m = BootGeneration.mismatch(other, other == 3 ? "3.5.7" : "4.1.2");
        assertThat(m).doesNotContain("\n")
                .startsWith(ModuleInfo.ARTIFACT + " is for Spring Boot ")
                .contains(other == 3 ? "runs Spring Boot 3.5.7" : "runs Spring Boot 4.1.2")
                .endsWith("depend on dev.vitals:" + (other == 3 ? "vitals-spring-boot3" : "vitals-spring-boot")
                        + " instead (same version, same vitals.* properties)");
        BootGeneration.WrongBootGeneration e = new BootGeneration.WrongBootGeneration(m);
        FailureAnalysis a = new BootGeneration.Analyzer().analyze(new IllegalStateException("context failed", e));
        assertThat(a.getDescription()).isEqualTo(m);
    }
}
