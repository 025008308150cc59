package dev.vitals.kubesim;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A tiny HTTP target that follows a timetable, for demos and real-process tests:
 * <pre>{@code
 * java -cp vitals.jar dev.vitals.kubesim.ScriptedTarget --port 8080 \
 *      --plan refuse:3,200:10,500:5,hang:5,refuse:5,200 [--path-plan /readyz=200:4,503] 
 * }</pre>
 * A plan is {@code MODE:SECONDS,...}, the last phase without seconds lasting forever; times
 * run from process start. Modes: an HTTP status code (answers with it), {@code hang} (reads the
 * request, never answers), {@code refuse} (the default plan closes the listening socket, so
 * connections are refused; a path plan resets the connection) and {@code exit<N>} (the
 * process exits with code N). Listens on 127.0.0.1 only.
 */
public final class ScriptedTarget {
    private final long start = System.nanoTime();
    private final List<String[]> plan;
    private final Map<String, List<String[]>> pathPlans;
    private final int port;
    private volatile ServerSocket server;
    private Thread acceptor;

    private ScriptedTarget(int port, List<String[]> plan, Map<String, List<String[]>> pathPlans) {
        this.port = port;
        this.plan = plan;
        this.pathPlans = pathPlans;
    }

    /**
     * @param args {@code --port N [--plan PLAN] [--path-plan PATH=PLAN]...}
     * @throws Exception on bad arguments or when the port cannot be bound
     */
    public static void main(String[] args) throws Exception {
        int port = 8080;
        String plan = "200";
        Map<String, List<String[]>> pathPlans = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port":
                    port = Integer.parseInt(args[++i]);
                    break;
                case "--plan":
                    plan = args[++i];
                    break;
                case "--path-plan": {
                    String v = args[++i];
                    int eq = v.indexOf('=');
                    pathPlans.put(v.substring(0, eq), parse(v.substring(eq + 1)));
                    break;
                }
                default:
                    System.err.println("usage: ScriptedTarget --port N [--plan MODE:SECONDS,...] [--path-plan /path=PLAN]");
                    System.exit(2);
            }
        }
        new ScriptedTarget(port, parse(plan), pathPlans).run();
    }

    private static List<String[]> parse(String plan) {
        List<String[]> out = new ArrayList<>();
        for (String p : plan.split(",")) {
            String[] kv = p.trim().split(":");
            out.add(new String[] {kv[0], kv.length > 1 ? kv[1] : "1e9"});
        }
        return out;
    }

    private String modeAt(List<String[]> plan) {
        double t = (System.nanoTime() - start) / 1e9;
        double end = 0;
        for (String[] ph : plan) {
            end += Double.parseDouble(ph[1]);
            if (t < end) {
                return ph[0];
            }
        }
        return plan.get(plan.size() - 1)[0];
    }

    private void run() throws Exception {
        System.out.println("scripted target on 127.0.0.1:" + port + ", pid " + ProcessHandle.current().pid());
        while (true) {
            String mode = modeAt(plan);
            if (mode.startsWith("exit")) {
                System.out.println("exiting with " + mode.substring(4));
                System.exit(Integer.parseInt(mode.substring(4)));
            }
            if (mode.equals("refuse") && server != null) {
                server.close();
                server = null;
                acceptor.join(2000); // the kernel keeps the socket until accept() returns
            } else if (!mode.equals("refuse") && server == null) {
                ServerSocket ss = new ServerSocket();
                ss.setReuseAddress(true);
                ss.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
                server = ss;
                Thread t = new Thread(() -> accept(ss), "vitals-target-accept");
                t.setDaemon(true);
                acceptor = t;
                t.start();
            }
            Thread.sleep(20);
        }
    }

    private void accept(ServerSocket ss) {
        while (!ss.isClosed()) {
            try {
                Socket s = ss.accept();
                Thread t = new Thread(() -> handle(s), "vitals-target-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void handle(Socket s) {
        try (s) {
            s.setSoTimeout(30_000);
            InputStream in = s.getInputStream();
            String head = readHead(in);
            String[] first = head.split(" ", 3);
            String path = first.length > 1 ? first[1] : "/";
            int q = path.indexOf('?');
            String mode = modeAt(pathPlans.getOrDefault(q < 0 ? path : path.substring(0, q), plan));
            if (mode.equals("hang")) {
                s.setSoTimeout(0);
                while (in.read() >= 0) {
                    // hold the connection until the client gives up
                }
                return;
            }
            if (mode.equals("refuse") || mode.startsWith("exit")) {
                s.setSoLinger(true, 0);
                return;
            }
            int code = Integer.parseInt(mode);
            byte[] body = (code < 400 ? "ok\n" : "failed\n").getBytes(StandardCharsets.UTF_8);
            OutputStream out = s.getOutputStream();
            out.write(("HTTP/1.1 " + code + " X\r\nContent-Type: text/plain\r\nContent-Length: " + body.length
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
        } catch (IOException | RuntimeException e) {
            // the client went away
        }
    }

    /**
     * Reads an HTTP request head byte by byte, up to and including the blank line (or to the end
     * of the stream). Shared with the tests' loopback server.
     *
     * @param in the connection's input
     * @return the head as read, ISO-8859-1
     * @throws IOException on a read error or timeout
     */
    static String readHead(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        int b;
        while ((b = in.read()) >= 0) {
            head.append((char) b);
            if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
                break;
            }
        }
        return head.toString();
    }
}
