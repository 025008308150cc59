/**
 * Vitals gRPC health: {@code grpc.health.v1.Health} (Check, List and Watch) answered from the
 * Vitals registry on its own port and event loop ({@code GrpcHealthServer}), or as a service to
 * add to the application's own gRPC server ({@code GrpcHealthService}, a {@code BindableService}).
 *
 * <p>grpc-java ships automatic modules: {@code io.grpc} (grpc-api; transitive, since
 * {@code GrpcHealthService} is an {@code io.grpc.BindableService}) and
 * {@code io.grpc.netty.shaded} (the server's transport, its Netty shaded inside). grpc-java's
 * {@code java.util.logging} output of the transport is filtered ({@code TransportLogs}).
 */
module dev.vitals.grpc {
    requires transitive dev.vitals.core;
    requires transitive io.grpc;
    requires io.grpc.netty.shaded;
    requires java.logging;

    exports dev.vitals.grpc;
}
