package dev.vitals.kubesim.runtime;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where a class was loaded from: the class path a child JVM needs to run it (the fleet's synthetic
 * replicas), or the place next to which the command looks for the demo jar ({@code vitals replay}).
 * Stateless; thread-safe.
 */
public final class CodeSources {

    private CodeSources() {
    }

    /**
     * Finds a class's jar or directory.
     *
     * @param c the class
     * @return where the class {@code c} was loaded from (a jar or a classes directory), if the JVM
     *     says; empty when it has no code source or its location is not a file path
     */
    public static Optional<Path> codeSourceOf(Class<?> c) {
        try {
            java.security.CodeSource cs = c.getProtectionDomain().getCodeSource();
            return cs == null || cs.getLocation() == null ? Optional.empty() : Optional.of(Path.of(cs.getLocation().toURI()));
        } catch (URISyntaxException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
