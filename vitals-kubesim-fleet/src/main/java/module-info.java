/**
 * Vitals kubesim fleet: replicas behind a Service (routing, rolling updates, load) in two engines,
 * virtual time (the model engine) and real processes (the live engine), on the core library's API.
 * The only part of the simulator that needs the JDK's HTTP server (its synthetic replicas).
 *
 * <p>Internal: exported to the command line only ({@code vitals fleet}); docs/fleet.md is the user's
 * guide. The package graph is checked by FleetPackageGraphTest (docs/DESIGN.md section 7).
 */
// "module": the qualified exports name the sibling modules, which are built after this one.
@SuppressWarnings("module")
module dev.vitals.kubesim.fleet {
    requires dev.vitals.kubesim;
    requires com.fasterxml.jackson.databind;
    requires jdk.httpserver;      // the live fleet's synthetic replicas (fleet.SyntheticReplica)

    exports dev.vitals.kubesim.fleet to dev.vitals.kubesim.cli;
}
