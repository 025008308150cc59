/**
 * Reports of a simulation: terminal, JSON and HTML ({@link dev.vitals.kubesim.report.Reports}).
 */
package dev.vitals.kubesim.report;
