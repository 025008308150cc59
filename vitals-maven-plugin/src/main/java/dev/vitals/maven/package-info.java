/**
 * The Vitals Maven plugin: {@code vitals:lint} (bound to {@code verify}) lints the project's Kubernetes
 * manifests joined with its application configuration, as {@code vitals lint} does, and fails the build
 * per {@code failOn}; {@code vitals:simulate} (bound to {@code integration-test}) runs the built jar
 * under the manifest's probes, as {@code vitals simulate} does. Both call vitals-kubesim in the build's
 * JVM (its lint API; the simulate command through {@code VitalsCommand.execute}), never a copy of it.
 * docs/lint.md, "Running lint in Maven".
 */
package dev.vitals.maven;
