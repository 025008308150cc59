package dev.vitals.kubesim;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the simulator modules' architecture tests read (one per module: Core-, Fleet-, Lint- and the
 * command line's PackageGraphTest): the module's own descriptor and its main classes.
 */
public final class ModuleGraph {
    private ModuleGraph() {
    }

    /**
     * @return the descriptor of the module under test ({@code target/classes/module-info.class}, the
     *         test's working directory being the module's)
     * @throws IOException if it cannot be read
     */
    public static ModuleDescriptor thisModule() throws IOException {
        try (InputStream in = Files.newInputStream(Path.of("target/classes/module-info.class"))) {
            return ModuleDescriptor.read(in);
        }
    }

    /**
     * @param packages the packages to import, with their subpackages
     * @return their main classes (no test classes)
     */
    public static JavaClasses mainClasses(String... packages) {
        return new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages(packages);
    }
}
