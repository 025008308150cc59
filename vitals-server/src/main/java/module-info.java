/**
 * Vitals probe server: an isolated HTTP listener on its own event loop (the JDK's {@code java.nio}
 * by default, or Netty's with {@code Transport.NETTY}) that answers Kubernetes probes
 * ({@code /livez}, {@code /readyz}, {@code /startupz}) and JSON health reports from the registry's
 * in-memory state.
 *
 * <p>Netty is optional ({@code requires static}): the JDK transport needs no Netty module. An
 * application on the module path that chooses {@code Transport.NETTY} puts
 * {@code io.netty.transport} (with {@code io.netty.buffer} and {@code io.netty.common}) on the
 * module path and resolves it ({@code requires io.netty.transport} in its own descriptor, or
 * {@code --add-modules io.netty.transport}).
 */
module dev.vitals.server {
    requires transitive dev.vitals.core;
    requires static io.netty.common;
    requires static io.netty.buffer;
    requires static io.netty.transport;
    requires com.fasterxml.jackson.core;

    exports dev.vitals.server;
}
