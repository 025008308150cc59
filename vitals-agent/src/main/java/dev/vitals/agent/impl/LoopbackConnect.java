package dev.vitals.agent.impl;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;

/**
 * A TCP connect to an application port on loopback that never waits (issue 37: the readiness
 * check runs on Vitals' scheduler thread): started at once, finished by {@link #poll}, no byte
 * sent, closed once decided. A connect to a port whose accept backlog is full stays pending (the
 * kernel drops the handshake), so the caller bounds it with a deadline of its own.
 */
final class LoopbackConnect implements AutoCloseable {
    final int port;
    private final SocketChannel channel; // null when none could be opened
    private Boolean result;

    private LoopbackConnect(int port, SocketChannel channel) {
        this.port = port;
        this.channel = channel;
    }

    /**
     * @param port the application's port (on loopback, or the one address it listens on: {@link AppPorts#address})
     * @return the connect, started
     */
    static LoopbackConnect start(int port) {
        SocketChannel ch = null;
        LoopbackConnect c;
        try {
            ch = SocketChannel.open();
            c = new LoopbackConnect(port, ch);
            ch.configureBlocking(false);
            if (ch.connect(new InetSocketAddress(AppPorts.address(port), port))) {
                c.decide(true);
            }
        } catch (IOException e) {
            c = new LoopbackConnect(port, ch);
            c.decide(false);
        }
        return c;
    }

    /**
     * One non-blocking step.
     *
     * @return {@code TRUE} once connected, {@code FALSE} when refused or failed, {@code null}
     *     while still connecting
     */
    Boolean poll() {
        if (result == null) {
            try {
                if (channel.finishConnect()) {
                    decide(true);
                }
            } catch (IOException e) {
                decide(false);
            }
        }
        return result;
    }

    private void decide(boolean connected) {
        result = connected;
        close();
    }

    @Override
    public void close() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // nothing to do
            }
        }
    }
}
