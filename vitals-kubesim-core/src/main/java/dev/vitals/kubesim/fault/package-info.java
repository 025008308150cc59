/**
 * Fault injection and load: a loopback TCP proxy that delays, refuses, resets or blackholes
 * ({@link dev.vitals.kubesim.fault.FaultProxy}) and a bounded HTTP load
 * ({@link dev.vitals.kubesim.fault.LoadGenerator}).
 */
package dev.vitals.kubesim.fault;
