/** The {@code vitals} command line (picocli), a thin layer over {@code dev.vitals.kubesim}. */
package dev.vitals.kubesim.cli;
