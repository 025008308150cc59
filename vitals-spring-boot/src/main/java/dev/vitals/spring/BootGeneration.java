package dev.vitals.spring;

import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.util.ClassUtils;

/**
 * Which Spring Boot generation the application runs, and the one-line failure when it is not
 * the one this module was built for ({@link ModuleInfo}): {@code vitals-spring-boot} is for
 * Boot 4.x, {@code vitals-spring-boot3} for Boot 3.5.x. Without the check, the wrong module
 * fails deep inside Spring with an error that names neither Vitals nor the Boot version (issue
 * 13: {@code BeanDefinitionOverrideException ... 'healthStatusAggregator'} on Boot 3.5).
 *
 * <p>The generation is read from Boot's core jar, not from the Vitals module's own
 * dependencies (which the wrong module drags in): Boot 4 moved {@code EnvironmentPostProcessor}
 * to the package {@code org.springframework.boot}.
 */
final class BootGeneration {
    private static final String BOOT4_MARKER = "org.springframework.boot.EnvironmentPostProcessor";

    private BootGeneration() {
    }

    /** @return 4 when Boot's core jar is 4.x, else 3 */
    static int running() {
        return ClassUtils.isPresent(BOOT4_MARKER, BootGeneration.class.getClassLoader()) ? 4 : 3;
    }

    /** @return Boot's version from its jar manifest, or "unknown" */
    static String version() {
        String v = SpringBootVersion.getVersion();
        return v == null ? "unknown" : v;
    }

    /**
     * @param generation the generation found
     * @param version the Boot version found, for the message
     * @return the one-line message, or null when {@code generation} is this module's
     */
    static String mismatch(int generation, String version) {
        if (generation == ModuleInfo.BOOT_GENERATION) {
            return null;
        }
        String right = generation >= 4 ? "vitals-spring-boot" : "vitals-spring-boot3";
        return ModuleInfo.ARTIFACT + " is for Spring Boot " + ModuleInfo.BOOT_LINE + " but this application runs Spring Boot "
                + version + ": depend on dev.vitals:" + right + " instead (same version, same vitals.* properties)";
    }

    /**
     * @throws WrongBootGeneration when the running Boot is not this module's generation
     */
    static void require() {
        String m = mismatch(running(), version());
        if (m != null) {
            throw new WrongBootGeneration(m);
        }
    }

    /** The failure: its message is the whole story, one line. */
    static final class WrongBootGeneration extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        WrongBootGeneration(String message) {
            super(message);
        }
    }

    /**
     * Runs first among the context initializers ({@code META-INF/spring.factories}), before any
     * bean definition is read: a mismatch fails the start before Boot trips over the other
     * generation's classes.
     */
    static final class Check implements ApplicationContextInitializer<ConfigurableApplicationContext>, Ordered {
        @Override
        public void initialize(ConfigurableApplicationContext context) {
            if (!"false".equalsIgnoreCase(context.getEnvironment().getProperty("vitals.enabled"))) {
                require();
            }
        }

        @Override
        public int getOrder() {
            return Ordered.HIGHEST_PRECEDENCE;
        }
    }

    /** Boot prints the message (no stack trace) instead of "Application run failed" and a trace. */
    static final class Analyzer extends AbstractFailureAnalyzer<WrongBootGeneration> {
        @Override
        protected FailureAnalysis analyze(Throwable rootFailure, WrongBootGeneration cause) {
            return new FailureAnalysis(cause.getMessage(), "Replace the Vitals Spring module as the line above says.", cause);
        }
    }
}
