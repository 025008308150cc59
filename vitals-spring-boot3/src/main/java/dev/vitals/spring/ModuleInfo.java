package dev.vitals.spring;

/** What this module is: read by the shared sources ({@link BootGeneration}). */
final class ModuleInfo {
    /** The Spring Boot generation this module is compiled against. */
    static final int BOOT_GENERATION = 3;
    /** The Boot lines it is tested on, for messages. */
    static final String BOOT_LINE = "3.5.x";
    /** This module's artifact id. */
    static final String ARTIFACT = "vitals-spring-boot3";

    private ModuleInfo() {
    }
}
