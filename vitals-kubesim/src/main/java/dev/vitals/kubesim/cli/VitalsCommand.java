package dev.vitals.kubesim.cli;

import dev.vitals.kubesim.InvalidInputException;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

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
        // `vitals lint` builds lint's model alone: picocli reflects over every command it is given, a
        // large part of a short run's start-up (bench/cli-startup). What lint prints is the same.
        boolean lintOnly = args.length > 0 && args[0].equals("lint");
        return commandLine(out, err, lintOnly ? List.of(LintCommand.class) : SUBCOMMANDS).execute(args);
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
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            if (Interrupts.signal() != 0) { // SIGINT/SIGTERM: whatever the command was doing ended here
                Interrupts.report(cmd.getErr(), cmd.getCommandName() + " stopped, no report written");
                return Interrupts.exitCode();
            }
            if (ex instanceof InvalidInputException) {
                cmd.getErr().println("error: " + ex.getMessage());
                cmd.getErr().flush();
                return BAD_INPUT;
            }
            cmd.getErr().println("error: " + ex);
            cmd.getErr().flush();
            return FAILED;
        });
        cl.setParameterExceptionHandler((ex, args) -> {
            CommandLine cmd = ex.getCommandLine();
            List<String> unmatched = ex instanceof CommandLine.UnmatchedArgumentException
                    ? ((CommandLine.UnmatchedArgumentException) ex).getUnmatched() : List.of();
            if (cmd.getParent() == null && !unmatched.isEmpty() && !unmatched.get(0).startsWith("-")) {
                cmd.getErr().println("error: unknown command '" + unmatched.get(0) + "' (commands: "
                        + String.join(", ", cmd.getSubcommands().keySet()) + ")");
            } else {
                cmd.getErr().println("error: " + ex.getMessage());
            }
            cmd.getErr().println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help' for usage.");
            cmd.getErr().flush();
            return BAD_INPUT;
        });
        return cl;
    }
}
