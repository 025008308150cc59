package dev.vitals.kubesim.lint;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * One input of {@code vitals lint}: a file, or standard input ({@code -}). {@link #collect}
 * expands directories recursively to their {@code *.yaml}, {@code *.yml} and {@code *.json}
 * files (sorted; hidden directories skipped). Immutable.
 */
public final class LintInput {
    /** Opens the text of an input. */
    @FunctionalInterface
    public interface Opener {
        /**
         * Opens the text; each call reads it from the start.
         *
         * @return a fresh reader of the whole text
         * @throws IOException when the text cannot be read
         */
        Reader open() throws IOException;
    }

    private final String name;
    private final Opener opener;
    private final boolean found;

    private LintInput(String name, Opener opener) {
        this(name, opener, false);
    }

    private LintInput(String name, Opener opener, boolean found) {
        this.name = name;
        this.opener = opener;
        this.found = found;
    }

    /** @return whether it was found in a directory rather than named (a named input must be a manifest) */
    boolean found() {
        return found;
    }

    /** @return the name shown in findings ({@code -} for standard input) */
    public String name() {
        return name;
    }

    /**
     * Opens the input's text (a file is opened afresh; a stream's text was read once).
     *
     * @return a reader of the text
     * @throws IOException when the file cannot be opened
     */
    public Reader open() throws IOException {
        return opener.open();
    }

    /**
     * A file, named by its path in findings.
     *
     * @param p the manifest file
     * @return an input reading one file as UTF-8
     */
    public static LintInput file(Path p) {
        return new LintInput(p.toString(), () -> Files.isRegularFile(p) && Files.size(p) <= dev.vitals.kubesim.yaml.InputFiles.MAX_BYTES
                ? Files.newBufferedReader(p, StandardCharsets.UTF_8) // streamed: one document in memory at a time
                : new java.io.StringReader(dev.vitals.kubesim.yaml.InputFiles.readText(p)));
    }

    /**
     * A stream such as standard input; it is read once, when first opened.
     *
     * @param name what findings call it
     * @param in the stream, UTF-8
     * @return an input reading a stream once, named {@code name}
     */
    public static LintInput stream(String name, InputStream in) {
        Objects.requireNonNull(in, "in");
        return new LintInput(name, () -> new InputStreamReader(in, StandardCharsets.UTF_8));
    }

    /**
     * A text already in memory.
     *
     * @param name what findings call it
     * @param text the YAML manifests
     * @return an input holding a text (tests, embedding)
     */
    public static LintInput text(String name, String text) {
        return new LintInput(name, () -> new java.io.StringReader(text));
    }

    /**
     * @param args files, directories and {@code -}
     * @param stdin standard input, read when {@code -} is given
     * @return the inputs in the order given, directories expanded
     * @throws dev.vitals.kubesim.input.InvalidInputException when a path does not exist, {@code -} is given twice, a
     *         directory holds no manifest, or none is given
     */
    public static List<LintInput> collect(List<String> args, InputStream stdin) {
        return collect(args, stdin, false);
    }

    /**
     * @param args files, directories and {@code -}
     * @param stdin standard input, read when {@code -} is given
     * @param allowEmpty true to accept a directory holding no manifest file ({@code --allow-empty}): it adds no input
     * @return the inputs in the order given, directories expanded (empty when every directory is empty and allowed)
     * @throws dev.vitals.kubesim.input.InvalidInputException when a path does not exist, {@code -} is given twice, a
     *         directory holds no manifest (unless allowed), or none is given
     */
    public static List<LintInput> collect(List<String> args, InputStream stdin, boolean allowEmpty) {
        if (args.isEmpty()) {
            throw new dev.vitals.kubesim.input.InvalidInputException("no input: give files, directories, or - for standard input");
        }
        List<LintInput> out = new ArrayList<>();
        boolean sawStdin = false;
        for (String a : args) {
            if (a.equals("-")) {
                if (sawStdin) {
                    throw new dev.vitals.kubesim.input.InvalidInputException("- (standard input) given twice");
                }
                sawStdin = true;
                out.add(stream("-", stdin));
                continue;
            }
            Path p = Path.of(a);
            if (Files.isDirectory(p)) {
                List<Path> found = new ArrayList<>();
                try (Stream<Path> walk = Files.walk(p)) {
                    walk.filter(f -> Files.isRegularFile(f) && manifestName(f) && !hidden(p, f)).sorted().forEach(found::add);
                } catch (IOException | java.io.UncheckedIOException e) {
                    throw new dev.vitals.kubesim.input.InvalidInputException(a + ": cannot list directory: " + e.getMessage());
                }
                if (found.isEmpty() && !allowEmpty) {
                    throw new dev.vitals.kubesim.input.InvalidInputException(a + ": no *.yaml, *.yml or *.json files in this directory"
                            + " (--allow-empty accepts it)");
                }
                found.forEach(f -> out.add(new LintInput(f.toString(), file(f).opener, true)));
            } else if (Files.exists(p)) { // a regular file, or a pipe or device: vitals lint <(helm template …)
                out.add(file(p));
            } else {
                throw new dev.vitals.kubesim.input.InvalidInputException(a + ": no such file or directory");
            }
        }
        return out;
    }

    private static boolean manifestName(Path f) {
        String n = f.getFileName().toString().toLowerCase(Locale.ROOT);
        return n.endsWith(".yaml") || n.endsWith(".yml") || n.endsWith(".json");
    }

    private static boolean hidden(Path root, Path f) {
        Path rel = root.relativize(f);
        for (int i = 0; i < rel.getNameCount() - 1; i++) {
            if (rel.getName(i).toString().startsWith(".")) {
                return true;
            }
        }
        return false;
    }
}
