package dev.vitals.server;

import java.net.InetSocketAddress;

/**
 * The probe server's network side, behind {@link ProbeServer}: listening, accepting, reading and
 * writing bytes and running timers on event-loop threads of its own. Two implementations:
 * {@link NioTransport} ({@link ProbeServer.Transport#JDK}, java.nio only, the default) and
 * {@link NettyTransport} ({@link ProbeServer.Transport#NETTY}). Both admit connections through
 * the server's connection table ({@link ProbeServer#admit}) and give each one a
 * {@link ProbeConnection}, the one state machine that parses, decides and answers, so the HTTP
 * contract, limits and deadlines are the same by construction (the class Javadoc of
 * {@link ProbeServer}, DESIGN.md sections 6, 6a and 6b).
 *
 * <p>Its type appears nowhere else in the facade's signatures, fields or static initialisers, so
 * running the JDK transport never loads a Netty class. Lifecycle calls come from
 * {@link ProbeServer}, under its lifecycle lock, in this order: {@link #bind} once; then, on
 * stop, {@link #stopAccepting}, {@link #closeIdle}, {@link #connections} (polled) and
 * {@link #shutdown}.
 */
interface ServerTransport {
    /**
     * Binds {@code address} (accept backlog 1024, SO_REUSEADDR) and starts the event-loop threads.
     * On failure nothing is left running: no thread, no descriptor.
     *
     * @return the bound address
     * @throws IllegalStateException the failure, as {@link ProbeServer#bindFailed} words it
     */
    InetSocketAddress bind(InetSocketAddress address);

    /** Closes the listening socket; waits for that at most {@code waitMillis}. */
    void stopAccepting(long waitMillis);

    /** Closes every connection whose answer is not being prepared (asynchronously, on its loop). */
    void closeIdle();

    /** @return connections still open (the stop waits until none or its grace runs out) */
    int connections();

    /**
     * Closes every connection left and stops the event-loop threads, waiting for them at most
     * {@code graceMillis} + 5 s.
     */
    void shutdown(long graceMillis);
}
