/**
 * Vitals probe server: an isolated HTTP listener on its own event loop (Netty's by default, or
 * java.nio alone with {@code Transport.JDK}: Netty is then never loaded) that answers
 * Kubernetes probes ({@code /livez}, {@code /readyz}, {@code /startupz}) and JSON health reports
 * from the registry's in-memory state.
 */
module dev.vitals.server {
    requires transitive dev.vitals.core;
    requires io.netty.common;
    requires io.netty.buffer;
    requires io.netty.transport;
    requires io.netty.codec;
    requires io.netty.codec.http;
    requires com.fasterxml.jackson.core;

    exports dev.vitals.server;
}
