package dev.vitals.kubesim.cli;

import dev.vitals.kubesim.input.InvalidInputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;

/**
 * Where {@code --html PATH} writes, one rule for {@code simulate}, {@code replay} and {@code fleet}
 * (docs/simulator.md, "Reports"): a path ending in {@code .html} is the page itself; any other
 * path is a directory that receives {@code index.html}. Commands with more than one page
 * ({@code replay}, the fleet replays) write the others beside the index, linked from it. The
 * directory itself is made when missing (as {@code mkdir}, never its parents, as no report file's
 * parent is: an existing parent is what catches a typo); {@link #prepare} does so before the run,
 * so an unwritable target costs one line and exit 2, not the run. Immutable.
 */
final class HtmlOutput {
    /** The option's name, in every message. */
    static final String OPTION = "--html";

    private final Path given;
    private final boolean page;

    private HtmlOutput(Path given) {
        this.given = Objects.requireNonNull(given, "given");
        this.page = given.getFileName() != null && given.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".html");
    }

    /** @return the target of {@code --html PATH}, or null when the option was not given */
    static HtmlOutput of(Path given) {
        return given == null ? null : new HtmlOutput(given);
    }

    /** @return the page written (the path given, or {@code DIR/index.html}) */
    Path index() {
        return page ? given : given.resolve("index.html");
    }

    /** @return another page of the report, beside the index ({@code run.html} in its directory) */
    Path page(String name) {
        Path dir = index().getParent();
        return dir == null ? Path.of(name) : dir.resolve(name);
    }

    /** @return whether the path names a directory (not ending in {@code .html}) */
    boolean directory() {
        return !page;
    }

    /**
     * Before the run: a directory target that exists as a file, or whose parent is missing, is bad
     * input; a missing directory whose parent exists is made now. The index itself is then checked
     * as every report file is ({@link SimulateChecks#checkWritable}).
     *
     * @throws InvalidInputException (one line, exit 2) when the target cannot be written
     */
    void prepare() {
        if (given.toString().isBlank()) {
            throw new InvalidInputException(OPTION + ": empty path");
        }
        if (page) {
            return;
        }
        if (Files.exists(given) && !Files.isDirectory(given)) {
            throw new InvalidInputException(OPTION + " " + given + ": not a directory (a page's path ends in .html)");
        }
        if (Files.isDirectory(given)) {
            return;
        }
        Path parent = given.toAbsolutePath().getParent();
        if (parent == null || !Files.isDirectory(parent)) {
            throw new InvalidInputException(OPTION + " " + given + ": no such directory "
                    + (given.getParent() != null ? given.getParent() : parent == null ? "/" : parent)
                    + " (vitals makes the report's own directory, not its parents)");
        }
        try {
            Files.createDirectory(given);
        } catch (IOException | SecurityException e) {
            throw new InvalidInputException(OPTION + " " + given + ": cannot create the directory"
                    + (e instanceof IOException ? " (" + InvalidInputException.reason((IOException) e) + ")" : ""));
        }
    }

    @Override
    public String toString() {
        return given.toString();
    }
}
