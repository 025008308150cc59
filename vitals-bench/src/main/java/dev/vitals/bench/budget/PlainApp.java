package dev.vitals.bench.budget;

import com.sun.net.httpserver.HttpServer;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small plain-Java application for {@link Budget}'s agent rows: the JDK's HTTP server on a free
 * loopback port answering {@code GET /health} with 200, nothing else. Once the agent (if attached)
 * has polled {@code /health} (its readiness check, so it is started and working) and 2 s more have
 * passed, or after 2 s without an agent, it prints one line, {@code threads=N classes=M}: the live
 * threads and the classes loaded since the JVM started, and exits.
 *
 * <p>Argument: {@code agent} when the agent is attached (wait for its first poll, at most 60 s).
 */
public final class PlainApp {
    private PlainApp() {
    }

    /**
     * @param args {@code agent} or nothing
     * @throws Exception if the server cannot start
     */
    public static void main(String[] args) throws Exception {
        boolean agent = args.length > 0 && args[0].equals("agent");
        AtomicInteger polls = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        server.createContext("/health", exchange -> {
            polls.incrementAndGet();
            byte[] body = "ok".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (agent && polls.get() == 0) {
            if (System.nanoTime() > deadline) {
                System.out.println("error: the agent never polled /health in 60 s");
                System.exit(1);
            }
            Thread.sleep(50);
        }
        Thread.sleep(2000); // the agent's start-up thread ends, its first probes settle
        System.out.println("threads=" + ManagementFactory.getThreadMXBean().getThreadCount()
                + " classes=" + ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount());
        System.out.flush();
        server.stop(0);
        Runtime.getRuntime().halt(0); // the agent's shutdown drain would wait: not what is measured
    }

}
