package dev.vitals.demo;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;

/**
 * Entry point of {@code vitals-demo.jar}. Exit codes: 0 after {@code --help}, {@code --version}
 * or a clean stop; 1 if the service cannot start (e.g. a port is taken); 2 for an unknown flag
 * or a bad value (with a one-line reason and the usage on standard error).
 */
public final class DemoMain implements Callable<Integer> {
    private final DemoOptions options;
    private final PrintStream out;
    private final PrintStream err;

    private DemoMain(DemoOptions options, PrintStream out, PrintStream err) {
        this.options = options;
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        // Before any JDK HttpServer or logging class initialises (read once, at class init).
        System.setProperty("sun.net.httpserver.nodelay", "true");
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        // A cut database makes Hikari log every broken connection with a stack trace; the probes
        // already say the database is down, so keep stderr readable during an outage.
        if (System.getProperty("org.slf4j.simpleLogger.log.com.zaxxer.hikari.pool.ProxyConnection") == null) {
            System.setProperty("org.slf4j.simpleLogger.log.com.zaxxer.hikari.pool.ProxyConnection", "error");
        }
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tT.%1$tL %4$s %3$s: %5$s%6$s%n");
        }
        int code = run(System.out, System.err, args);
        if (code != 0) {
            System.exit(code);
        }
    }

    /**
     * Parses {@code args} and runs the demo until it stops (SIGTERM), or prints help, version
     * or an error.
     *
     * @return the exit code
     */
    static int run(PrintStream out, PrintStream err, String... args) {
        DemoOptions options;
        CommandLine cl;
        try {
            options = DemoOptions.parse(args);
        } catch (CommandLine.ParameterException e) {
            CommandLine help = e.getCommandLine();
            err.println("vitals-demo: " + e.getMessage());
            err.println("Try 'vitals-demo --help' for the flags.");
            return help.getCommandSpec().exitCodeOnInvalidInput();
        }
        cl = DemoOptions.commandLine(options);
        if (options.helpRequested()) {
            cl.usage(new PrintWriter(out, true));
            return 0;
        }
        if (options.versionRequested()) {
            cl.printVersionHelp(new PrintWriter(out, true));
            return 0;
        }
        try {
            return new DemoMain(options, out, err).call();
        } catch (Exception e) {
            err.println("vitals-demo: cannot start: " + e);
            return 1;
        }
    }

    @Override
    public Integer call() throws Exception {
        DemoApp app;
        try {
            app = DemoApp.start(options, out);
        } catch (InterruptedException e) {
            return 1;
        }
        Thread hook = new Thread(app::shutdownGracefully, "demo-sigterm");
        Runtime.getRuntime().addShutdownHook(hook);
        app.awaitStopped();
        return 0;
    }
}
