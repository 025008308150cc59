/** Vitals Micrometer: meters for check executions, statuses, pools, lag and pauses. */
module dev.vitals.micrometer {
    requires transitive dev.vitals.core;
    requires transitive micrometer.core;

    exports dev.vitals.micrometer;
}
