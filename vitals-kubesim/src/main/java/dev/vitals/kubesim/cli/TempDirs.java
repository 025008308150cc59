package dev.vitals.kubesim.cli;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The temporary directories a command makes for its target's output when no {@code --logs} is
 * given (issue 40): kept only once a run has ended and the command has named it in its output
 * ({@link #keep}); on every other path — bad input, an error before the run, an interrupt, any
 * exit of the JVM — removed ({@link #removeUnlessKept} in the command's {@code finally}, and a
 * shutdown hook for the rest). Thread-safe.
 */
final class TempDirs {
    private static final Set<Path> PENDING = new LinkedHashSet<>(); // guarded by itself
    private static boolean hooked; // guarded by PENDING

    private TempDirs() {
    }

    /**
     * @param prefix e.g. {@code vitals-calibrate-}
     * @return a new directory under the system's temporary directory, removed unless kept
     * @throws IOException when it cannot be made
     */
    static Path create(String prefix) throws IOException {
        Path dir = Files.createTempDirectory(prefix);
        synchronized (PENDING) {
            PENDING.add(dir);
            if (!hooked) {
                hooked = true;
                Runtime.getRuntime().addShutdownHook(new Thread(TempDirs::removeAll, "vitals-temp-dirs"));
            }
        }
        return dir;
    }

    /** @param dir a directory from {@link #create}: the command named it after its run, so it stays */
    static void keep(Path dir) {
        synchronized (PENDING) {
            PENDING.remove(dir);
        }
    }

    /** @param dir a directory from {@link #create} (others are left alone): removed with its files unless kept */
    static void removeUnlessKept(Path dir) {
        boolean pending;
        synchronized (PENDING) {
            pending = PENDING.remove(dir);
        }
        if (pending) {
            delete(dir);
        }
    }

    private static void removeAll() {
        Set<Path> all;
        synchronized (PENDING) {
            all = new LinkedHashSet<>(PENDING);
            PENDING.clear();
        }
        all.forEach(TempDirs::delete);
    }

    private static void delete(Path dir) {
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            // best effort: a file held open elsewhere; the system's temporary directory is cleaned in time
        }
    }
}
