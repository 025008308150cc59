/**
 * Vitals gRPC health: {@code grpc.health.v1.Health} ({@code Check}, {@code List} and {@code Watch}) answered
 * from a {@link dev.vitals.HealthRegistry}'s in-memory reports — isolated on its own port and
 * event loop ({@link dev.vitals.grpc.GrpcHealthServer}) or, not isolated, on the application's
 * own server ({@link dev.vitals.grpc.GrpcHealthService}).
 *
 * <p>No method accepts or returns {@code null}; arguments are checked with
 * {@link java.util.Objects#requireNonNull(Object, String)}.
 */
package dev.vitals.grpc;
