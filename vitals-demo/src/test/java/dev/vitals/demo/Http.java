package dev.vitals.demo;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** A kubelet-like HTTP client for tests: a fresh connection per request, a hard timeout, no retries. */
final class Http {
    private Http() {
    }

    /** Outcome of one request: a status and body, a timeout, or a connection error. */
    static final class Result {
        final int status;
        final String body;
        final boolean timedOut;
        final String error;
        final Duration elapsed;

        private Result(int status, String body, boolean timedOut, String error, Duration elapsed) {
            this.status = status;
            this.body = body;
            this.timedOut = timedOut;
            this.error = error;
            this.elapsed = elapsed;
        }

        boolean is(int code) {
            return status == code;
        }

        @Override
        public String toString() {
            if (timedOut) {
                return "timeout after " + elapsed.toMillis() + " ms";
            }
            if (error != null) {
                return "error " + error + " after " + elapsed.toMillis() + " ms";
            }
            return status + " in " + elapsed.toMillis() + " ms: " + body.strip();
        }
    }

    static Result get(int port, String path, Duration timeout) {
        return request("GET", port, path, timeout);
    }

    static Result post(int port, String path, Duration timeout) {
        return request("POST", port, path, timeout);
    }

    static Result request(String method, int port, String path, Duration timeout) {
        long t0 = System.nanoTime();
        HttpURLConnection c = null;
        try {
            c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL().openConnection();
            c.setRequestMethod(method);
            c.setRequestProperty("Connection", "close");
            c.setUseCaches(false);
            int ms = (int) timeout.toMillis();
            c.setConnectTimeout(ms);
            c.setReadTimeout(ms);
            if (method.equals("POST")) {
                c.setDoOutput(true);
                c.getOutputStream().close();
            }
            int status = c.getResponseCode();
            InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
            String body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return new Result(status, body, false, null, Duration.ofNanos(System.nanoTime() - t0));
        } catch (SocketTimeoutException e) {
            return new Result(-1, "", true, null, Duration.ofNanos(System.nanoTime() - t0));
        } catch (IOException e) {
            return new Result(-1, "", false, e.toString(), Duration.ofNanos(System.nanoTime() - t0));
        } finally {
            if (c != null) {
                c.disconnect();
            }
        }
    }
}
