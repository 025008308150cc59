package dev.vitals.spring;

/** What this module is: read by the shared sources ({@link BootGeneration}). */
final class ModuleInfo {
    /** The Spring Boot generation this module is compiled against. */
    static final int BOOT_GENERATION = 4;
    /** The Boot lines it is tested on, for messages. */
    static final String BOOT_LINE = "4.x (tested on 4.0 and 4.1)";
    /** This module's artifact id. */
    static final String ARTIFACT = "vitals-spring-boot";

    private ModuleInfo() {
    }
}
