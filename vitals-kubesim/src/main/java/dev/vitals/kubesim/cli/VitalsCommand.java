package dev.vitals.kubesim.cli;

import dev.vitals.kubesim.input.InvalidInputException;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/**
 * The {@code vitals} command line: {@code simulate}, {@code lint} (and room for
 * {@code replay}). A thin layer over the {@code dev.vitals.kubesim} library.
 * Exit codes: 0 success, 1 an expectation or lint finding failed, 2 bad input, 130/143 stopped
 * by SIGINT/SIGTERM ({@link Interrupts}).
 */
@Command(name = "vitals", mixinStandardHelpOptions = true, version = "vitals " + VitalsCommand.VERSION,
        description = "Vitals tools: replay kubelet's probe rules against a live process, lint probe configurations.")
public final class VitalsCommand implements Runnable {
    /** The subcommands, in the order help lists them (added in {@link #commandLine(PrintWriter, PrintWriter)}). */
    private static final List<Class<?>> SUBCOMMANDS = List.of(SimulateCommand.class, LintCommand.class, ReplayCommand.class,
            FleetCommand.class, CompletionCommand.class, CommandLine.HelpCommand.class);

    /** The tool's version (SARIF reports carry it). */
    public static final String VERSION = "0.1.0-SNAPSHOT";
    /** Exit code when every expectation holds / no finding. */
    public static final int OK = 0;
    /** Exit code when an expectation fails or lint finds something. */
    public static final int FAILED = 1;
    /** Exit code for bad input (manifest, flags, scenario). */
    public static final int BAD_INPUT = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /**
     * @param args command-line arguments
     */
    public static void main(String[] args) {
        Interrupts.install(Thread.currentThread());
        System.exit(execute(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
    }

    /**
     * Runs the command line without exiting the JVM (for tests and embedding).
     *
     * @param out standard output
     * @param err standard error
     * @param args arguments
     * @return the exit code
     */
    public static int execute(PrintWriter out, PrintWriter err, String... args) {
        if (isPlainLint(args)) {
            try {
                return LintCommand.runPaths(List.of(args).subList(1, args.length), out, err);
            } catch (Exception e) {
                return failure(e, err, "lint");
            }
        }
        // `vitals lint|simulate|replay|fleet ...` builds that command's model alone: picocli reflects over
        // every command it is given, a large part of a short run's start-up (bench/cli-startup) and of
        // every bad-input answer. What the command prints is the same; help and completion see all.
        List<Class<?>> only = args.length == 0 ? SUBCOMMANDS : SUBCOMMANDS.stream()
                .filter(c -> c != CompletionCommand.class && c != CommandLine.HelpCommand.class)
                .filter(c -> c.getAnnotation(Command.class).name().equals(args[0])).toList();
        return commandLine(out, err, only.isEmpty() ? SUBCOMMANDS : only).execute(args);
    }

    /**
     * @return whether {@code args} is {@code lint} and paths alone, which {@link LintCommand#runPaths}
     *     runs as picocli would: no argument that picocli reads as an option ({@code -…}, except
     *     {@code -}, standard input), an argument file ({@code @…}) or a help request
     */
    static boolean isPlainLint(String... args) {
        if (args.length < 2 || !args[0].equals("lint")) {
            return false;
        }
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            if (a.isEmpty() || a.startsWith("@") || (a.startsWith("-") && !a.equals("-"))) {
                return false;
            }
        }
        return true;
    }

    /** What a command's exception becomes: one line on standard error and the exit code (picocli's handler too). */
    private static int failure(Exception ex, PrintWriter err, String command) {
        if (Interrupts.signal() != 0) { // SIGINT/SIGTERM: whatever the command was doing ended here
            Interrupts.report(err, command + " stopped, no report written");
            return Interrupts.exitCode();
        }
        if (ex instanceof InvalidInputException) {
            err.println("error: " + oneLine(String.valueOf(ex.getMessage())));
            err.flush();
            return BAD_INPUT;
        }
        err.println("error: " + oneLine(String.valueOf(ex)));
        err.flush();
        return FAILED;
    }

    /**
     * @param out standard output
     * @param err standard error
     * @return the configured picocli command line (another tool can add subcommands to it)
     */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        return commandLine(out, err, SUBCOMMANDS);
    }

    private static CommandLine commandLine(PrintWriter out, PrintWriter err, List<Class<?>> subcommands) {
        CommandLine cl = new CommandLine(new VitalsCommand());
        subcommands.forEach(cl::addSubcommand);
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> failure(ex, cmd.getErr(), cmd.getCommandName()));
        cl.setParameterExceptionHandler((ex, args) -> {
            CommandLine cmd = ex.getCommandLine();
            List<String> unmatched = ex instanceof CommandLine.UnmatchedArgumentException
                    ? ((CommandLine.UnmatchedArgumentException) ex).getUnmatched() : List.of();
            String message;
            if (cmd.getParent() == null && !unmatched.isEmpty() && !unmatched.get(0).startsWith("-")) {
                message = "unknown command '" + unmatched.get(0) + "' (commands: "
                        + String.join(", ", cmd.getSubcommands().keySet()) + ")";
            } else {
                message = String.valueOf(ex.getMessage());
            }
            // one line, as every other input error (issue 30); the hint to --help at its end
            cmd.getErr().println("error: " + oneLine(message) + " (see '" + cmd.getCommandSpec().qualifiedName() + " --help')");
            cmd.getErr().flush();
            return BAD_INPUT;
        });
        return cl;
    }

    /** @return {@code text} on one line: line breaks and the indentation after them become one space */
    static String oneLine(String text) {
        return text.strip().replaceAll("\\s*\\R\\s*", " ");
    }
}
