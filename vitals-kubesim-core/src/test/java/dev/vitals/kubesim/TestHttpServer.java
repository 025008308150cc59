package dev.vitals.kubesim;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A raw loopback HTTP/1.1 server for prober tests: records each request head, answers via a responder. */
public final class TestHttpServer implements AutoCloseable {
    public interface Responder {
        void respond(String head, OutputStream out, Socket s) throws IOException, InterruptedException;
    }

    public final List<String> requests = new CopyOnWriteArrayList<>();
    private final ServerSocket server;
    private volatile Responder responder;

    public TestHttpServer(Responder responder) throws IOException {
        this(new ServerSocket(), responder);
    }

    public TestHttpServer(ServerSocket ss, Responder responder) throws IOException {
        this.server = ss;
        if (!ss.isBound()) {
            ss.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        }
        this.responder = responder;
        Thread t = new Thread(this::loop, "test-http");
        t.setDaemon(true);
        t.start();
    }

    public void responder(Responder r) {
        this.responder = r;
    }

    public int port() {
        return server.getLocalPort();
    }

    private void loop() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                Thread t = new Thread(() -> handle(s), "test-http-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void handle(Socket s) {
        try (s) {
            s.setSoTimeout(20_000);
            String head = ScriptedTarget.readHead(s.getInputStream());
            requests.add(head);
            responder.respond(head, s.getOutputStream(), s);
            s.getOutputStream().flush();
        } catch (IOException | InterruptedException e) {
            // client went away
        }
    }

    public static void answer(OutputStream out, int status, String headers, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        out.write(("HTTP/1.1 " + status + " X\r\n" + headers + "Content-Length: " + b.length + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.write(b);
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
