package dev.vitals.bench.suite;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A kubelet-like HTTP probe: a fresh connection per request, {@code Connection: close}, one
 * deadline for connect plus answer, success for a status from 200 to 399 (kubelet:
 * pkg/probe/http/http.go). Stateless; thread-safe.
 */
final class HttpProbe {
    private HttpProbe() {
    }

    /**
     * @param status     HTTP status, or -1 when there was no complete answer
     * @param latencyMs  from before connect to the end of the answer (or the failure), ms
     * @param error      empty on success, else what went wrong ({@code timeout}, {@code status 503}, ...)
     */
    record Result(int status, double latencyMs, String error) {
        boolean ok() {
            return error.isEmpty();
        }
    }

    /** Probes {@code GET path} on 127.0.0.1:{@code port} within {@code timeout}. Never throws. */
    static Result get(int port, String path, Duration timeout) {
        long t0 = System.nanoTime();
        long deadline = t0 + timeout.toNanos();
        int status = -1;
        try (Socket s = new Socket()) {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), (int) Math.max(1, timeout.toMillis()));
            s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port
                    + "\r\nUser-Agent: kube-probe/1.33\r\nAccept: */*\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            while (true) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    throw new SocketTimeoutException();
                }
                s.setSoTimeout((int) left);
                int n = in.read(buf);
                if (n < 0) {
                    break;
                }
                all.write(buf, 0, n);
                status = statusOf(all);
                if (status > 0 && complete(all)) {
                    break;
                }
            }
            status = statusOf(all);
            double ms = (System.nanoTime() - t0) / 1e6;
            if (status < 0) {
                return new Result(-1, ms, "no answer");
            }
            return new Result(status, ms, status >= 200 && status < 400 ? "" : "status " + status);
        } catch (SocketTimeoutException e) {
            return new Result(status, (System.nanoTime() - t0) / 1e6, "timeout");
        } catch (IOException e) {
            return new Result(status, (System.nanoTime() - t0) / 1e6, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private static int statusOf(ByteArrayOutputStream all) {
        String head = all.toString(StandardCharsets.ISO_8859_1);
        int eol = head.indexOf("\r\n");
        if (eol < 0 || !head.startsWith("HTTP/1.")) {
            return -1;
        }
        String[] parts = head.substring(0, eol).split(" ");
        try {
            return parts.length >= 2 ? Integer.parseInt(parts[1]) : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** True when the head and a Content-Length body have arrived (otherwise read to EOF). */
    private static boolean complete(ByteArrayOutputStream all) {
        String text = all.toString(StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            return false;
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?im)^content-length:\\s*(\\d+)").matcher(text.substring(0, end));
        return m.find() && text.length() - (end + 4) >= Integer.parseInt(m.group(1));
    }

    /**
     * Polls {@code path} until it answers 200 to 399.
     *
     * @throws IllegalStateException with the last result when {@code timeout} passes, or when
     *     {@code child} exits first
     */
    static void awaitOk(ChildJvm child, int port, String path, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        Result last = null;
        while (System.nanoTime() - end < 0) {
            child.requireAlive();
            last = get(port, path, Duration.ofSeconds(5));
            if (last.ok()) {
                return;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException(child.name + ": " + path + " on port " + port + " not ok within " + timeout
                + " (last: " + last + "); log " + child.log + ":\n" + child.tail());
    }
}
