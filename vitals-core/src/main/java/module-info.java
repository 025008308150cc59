/** Vitals core: check API, registry, evaluation engine, availability state and monitors. JDK only. */
module dev.vitals.core {
    requires java.management;

    exports dev.vitals;
    exports dev.vitals.monitor;
}
