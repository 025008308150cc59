package dev.vitals.maven;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where a Maven module keeps its Kubernetes manifests and its application configuration, when the
 * build does not say: the conventions of the tools that write them. Stateless.
 */
final class ProjectManifests {
    /** A Spring Boot or Vitals setting in a properties or YAML file: what the app-config join reads. */
    private static final Pattern JOINABLE = Pattern.compile("(?m)^\\s*(spring|management|server|vitals)\\s*[.:]");

    private ProjectManifests() {
    }

    /**
     * The default inputs, those that exist: {@code src/main/k8s} and {@code k8s} (hand-written),
     * Quarkus' {@code target/kubernetes/*.yml} (quarkus-kubernetes writes {@code kubernetes.yml} and the
     * same objects as {@code kubernetes.json}: the YAML is read), and Eclipse JKube's
     * {@code target/classes/META-INF/jkube}: its {@code kubernetes.yml} (every object in one file) when
     * present, else the directory.
     *
     * @param basedir the module's directory
     * @param buildDirectory its {@code target}
     * @return the files and directories to lint, possibly none
     */
    static List<Path> defaults(Path basedir, Path buildDirectory) {
        List<Path> out = new ArrayList<>();
        for (Path dir : List.of(basedir.resolve("src/main/k8s"), basedir.resolve("k8s"))) {
            if (Files.isDirectory(dir)) {
                out.add(dir);
            }
        }
        Path quarkus = buildDirectory.resolve("kubernetes");
        if (Files.isDirectory(quarkus)) {
            try (Stream<Path> files = Files.list(quarkus)) {
                files.filter(f -> f.getFileName().toString().endsWith(".yml") && Files.isRegularFile(f)).sorted().forEach(out::add);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        Path jkube = buildDirectory.resolve("classes/META-INF/jkube");
        if (Files.isRegularFile(jkube.resolve("kubernetes.yml"))) {
            out.add(jkube.resolve("kubernetes.yml"));
        } else if (Files.isDirectory(jkube)) {
            out.add(jkube);
        }
        return out;
    }

    /**
     * The module's own {@code src/main/resources/application.properties|yaml|yml} that hold Spring Boot
     * or Vitals settings ({@code spring.*}, {@code management.*}, {@code server.*}, {@code vitals.*}): the
     * join follows Spring Boot's rules, so a Quarkus or Micronaut {@code application.properties} is
     * left out rather than read as Spring's.
     *
     * @param basedir the module's directory
     * @return the files to join, lowest precedence first (YAML, then properties: Spring Boot lets
     *         {@code .properties} win over {@code .yaml} in one location)
     */
    static List<Path> appConfig(Path basedir) {
        List<Path> out = new ArrayList<>();
        for (String n : List.of("application.yaml", "application.yml", "application.properties")) {
            Path f = basedir.resolve("src/main/resources").resolve(n);
            if (Files.isRegularFile(f) && joinable(f)) {
                out.add(f);
            }
        }
        return out;
    }

    private static boolean joinable(Path f) {
        try {
            return JOINABLE.matcher(Files.readString(f, StandardCharsets.ISO_8859_1)).find();
        } catch (IOException e) {
            return true; // the join reports the read error itself, as one line
        }
    }

    /**
     * A path as reports show it: relative to the working directory (where {@code mvn} runs: the
     * repository's root in most builds, so SARIF's URIs are the repository's) when inside it, else absolute.
     *
     * @param basedir the module's directory, against which a relative {@code p} is resolved
     * @param p a path
     * @return the path to show
     */
    static String shown(Path basedir, Path p) {
        Path cwd = Path.of("").toAbsolutePath().normalize();
        Path abs = p.isAbsolute() ? p.normalize() : basedir.resolve(p).toAbsolutePath().normalize();
        return abs.startsWith(cwd) && !abs.equals(cwd) ? cwd.relativize(abs).toString() : abs.toString();
    }
}
