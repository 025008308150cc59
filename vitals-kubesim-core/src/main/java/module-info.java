/**
 * Vitals kubesim core: the kubelet's probe and restart rules as a library. A newcomer's API:
 * building and running a simulation ({@code dev.vitals.kubesim}: {@code Simulation}), the pod, probe
 * and kubelet options it runs in ({@code model}), a run's scenario ({@code scenario}), faults
 * ({@code fault}), resource limits and the real container runtime ({@code runtime}), its results
 * ({@code result}), input errors ({@code input}) and manifest reading ({@code manifest}).
 *
 * <p>Internal, exported only to the simulator's other modules: the real probers ({@code probe}: fleet,
 * lint, the command line), YAML limits ({@code yaml}: fleet, lint) and reports ({@code report}: fleet,
 * the command line). The package graph is checked by CorePackageGraphTest (docs/DESIGN.md section 7).
 */
// "module": the qualified exports name the sibling modules, which are built after this one.
@SuppressWarnings("module")
module dev.vitals.kubesim {
    requires transitive dev.vitals.core;
    requires dev.vitals.testing;
    requires com.fasterxml.jackson.databind;
    requires org.snakeyaml.engine;
    requires io.grpc;
    requires io.grpc.services;
    requires io.grpc.stub;
    requires java.net.http;       // load generators (fault)

    exports dev.vitals.kubesim;
    exports dev.vitals.kubesim.input;
    exports dev.vitals.kubesim.model;
    exports dev.vitals.kubesim.scenario;
    exports dev.vitals.kubesim.fault;
    exports dev.vitals.kubesim.runtime;
    exports dev.vitals.kubesim.result;
    exports dev.vitals.kubesim.manifest;

    exports dev.vitals.kubesim.probe to dev.vitals.kubesim.fleet, dev.vitals.kubesim.lint, dev.vitals.kubesim.cli;
    exports dev.vitals.kubesim.yaml to dev.vitals.kubesim.fleet, dev.vitals.kubesim.lint;
    exports dev.vitals.kubesim.report to dev.vitals.kubesim.fleet, dev.vitals.kubesim.cli;
}
