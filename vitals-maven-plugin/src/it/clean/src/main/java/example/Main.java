package example;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** The service: its work on 18480, its probes on 18481 (answered by their own thread, never queued behind requests). */
public final class Main {
    public static void main(String[] args) throws Exception {
        HttpServer app = HttpServer.create(new InetSocketAddress(18480), 0);
        app.createContext("/", x -> reply(x, "hello"));
        app.start();
        HttpServer probes = HttpServer.create(new InetSocketAddress(18481), 0);
        probes.createContext("/livez", x -> reply(x, "ok"));
        probes.createContext("/readyz", x -> reply(x, "ok"));
        probes.start();
    }

    private static void reply(com.sun.net.httpserver.HttpExchange x, String body) throws java.io.IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        x.sendResponseHeaders(200, b.length);
        x.getResponseBody().write(b);
        x.close();
    }
}
