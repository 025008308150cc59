/**
 * Vitals kubesim: the kubelet's probe and restart rules as a library, and the {@code vitals} command
 * line built on it (simulate, lint, replay, fleet).
 *
 * <p>The API: building and running a simulation ({@code dev.vitals.kubesim}: {@code Simulation}; the
 * pod, probe and kubelet options it runs in {@code model}; a run's scenario in {@code scenario}; faults
 * in {@code fault}; resource limits in {@code runtime}), its results ({@code result}), input errors
 * ({@code input}), manifest reading ({@code manifest}) and lint's findings ({@code lint}); the command
 * line ({@code cli}). Everything else (the real probers, YAML limits, reports, the fleet and replay
 * engines behind their commands) is internal. The package graph is checked by PackageGraphTest.
 */
module dev.vitals.kubesim {
    requires transitive dev.vitals.core;
    requires dev.vitals.testing;
    requires com.fasterxml.jackson.databind;
    requires org.snakeyaml.engine;
    requires info.picocli;
    requires io.grpc;
    requires io.grpc.services;
    requires io.grpc.stub;
    requires java.net.http;       // load generators
    requires jdk.httpserver;      // the live fleet's synthetic replicas (fleet.SyntheticReplica)
    requires jdk.unsupported;     // sun.misc.Signal: SIGTERM handling (cli.Interrupts)

    exports dev.vitals.kubesim;
    exports dev.vitals.kubesim.input;
    exports dev.vitals.kubesim.model;
    exports dev.vitals.kubesim.scenario;
    exports dev.vitals.kubesim.fault;
    exports dev.vitals.kubesim.runtime;
    exports dev.vitals.kubesim.result;
    exports dev.vitals.kubesim.manifest;
    exports dev.vitals.kubesim.lint;
    exports dev.vitals.kubesim.cli;

    // picocli builds the commands by reflection
    opens dev.vitals.kubesim.cli to info.picocli;
}
