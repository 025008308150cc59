/** Vitals core: check API, registry, evaluation engine, availability state and monitors. JDK only. */
module dev.vitals.core {
    requires java.management;

    exports dev.vitals;
    exports dev.vitals.monitor;
    // not API: the probe ports' shared connection policy (DESIGN.md 6b)
    exports dev.vitals.internal to dev.vitals.server, dev.vitals.grpc;
}
