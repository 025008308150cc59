/**
 * Vitals kubesim command line: {@code vitals} (simulate, lint, replay, fleet) on the simulator's
 * modules ({@code dev.vitals.kubesim}, {@code dev.vitals.kubesim.fleet}, {@code dev.vitals.kubesim.lint}),
 * and the replay catalog behind {@code vitals replay} (internal). The API is the command
 * ({@code cli.VitalsCommand}); the package graph of all four modules is checked by PackageGraphTest.
 */
module dev.vitals.kubesim.cli {
    requires dev.vitals.kubesim;
    requires dev.vitals.kubesim.fleet;
    requires dev.vitals.kubesim.lint;
    requires com.fasterxml.jackson.databind;
    requires info.picocli;
    requires jdk.unsupported;     // sun.misc.Signal: SIGTERM handling (cli.Interrupts)

    exports dev.vitals.kubesim.cli;

    // picocli builds the commands by reflection
    opens dev.vitals.kubesim.cli to info.picocli;
}
