/**
 * The isolated probe server (DESIGN.md section 6): {@link dev.vitals.server.ProbeServer}, built
 * with {@link dev.vitals.server.ProbeServer#builder(dev.vitals.HealthRegistry)}, and the
 * {@link dev.vitals.server.DetailsPolicy} that decides whether details, error messages and
 * error types appear in probe bodies.
 *
 * <p>No method of this package accepts or returns {@code null}: absent values are
 * {@link java.util.Optional}, and null arguments are rejected with a
 * {@link java.lang.NullPointerException} naming the parameter.
 *
 * <p>Routing and formatting are kept apart from the transports (package-private
 * {@code ProbeRouter}), and so is each connection's protocol ({@code ProbeConnection}, an I/O-free
 * state machine with the one HTTP/1.x parser); the transports, {@code NioTransport} (default) and
 * {@code NettyTransport}, chosen with {@link dev.vitals.server.ProbeServer.Builder#transport},
 * only move bytes and run timers.
 */
package dev.vitals.server;
