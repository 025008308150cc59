package dev.vitals.kubesim.replay;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds {@code vitals-demo.jar} without a compile-time dependency on the demo: next to
 * {@code vitals.jar}'s module ({@code <repo>/vitals-kubesim/target/vitals.jar} →
 * {@code <repo>/vitals-demo/target/vitals-demo.jar}), in the same directory as
 * {@code vitals.jar}, or under the working directory.
 */
public final class DemoJar {
    /** The demo jar's path inside a built checkout. */
    public static final Path IN_CHECKOUT = Path.of("vitals-demo", "target", "vitals-demo.jar");

    private DemoJar() {
    }

    /**
     * @param codeSource where this code was loaded from (a jar or a classes directory), if known
     * @param workingDir the working directory
     * @return the places looked at, in order
     */
    public static List<Path> candidates(Optional<Path> codeSource, Path workingDir) {
        List<Path> out = new ArrayList<>();
        codeSource.ifPresent(src -> {
            Path dir = src.toAbsolutePath().normalize();
            if (!Files.isDirectory(dir)) {
                dir = dir.getParent();
                if (dir != null) {
                    out.add(dir.resolve("vitals-demo.jar"));
                }
            }
            for (int up = 0; up < 4 && dir != null; up++) {
                out.add(dir.resolve(IN_CHECKOUT));
                dir = dir.getParent();
            }
        });
        out.add(workingDir.toAbsolutePath().normalize().resolve(IN_CHECKOUT));
        return out;
    }

    /**
     * @param codeSource where this code was loaded from, if known
     * @param workingDir the working directory
     * @return the first candidate that is a regular file
     */
    public static Optional<Path> find(Optional<Path> codeSource, Path workingDir) {
        for (Path p : candidates(codeSource, workingDir)) {
            if (Files.isRegularFile(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /**
     * @param file a regular file
     * @return whether it starts with the zip local-file signature ({@code PK\3\4}), as every jar does
     */
    public static boolean looksLikeJar(Path file) {
        try (java.io.InputStream in = Files.newInputStream(file)) {
            byte[] magic = in.readNBytes(4);
            return magic.length == 4 && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
