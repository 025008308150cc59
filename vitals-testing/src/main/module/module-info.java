/**
 * Vitals testing: the injectable fakes for time (ManualClock, ManualScheduler) and the shared
 * helpers for hostile-input and log tests. The simulator uses the manual scheduler at run time
 * (its virtual time), so this is a module, not test-only code.
 */
module dev.vitals.testing {
    requires transitive dev.vitals.core;
    requires java.logging;   // LogCapture

    exports dev.vitals.testing;
}
