package dev.vitals.bench.suite;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs wrk (Debian package {@code wrk}: {@code apt-get install -y wrk}) and reads its
 * {@code --latency} report. Stateless; thread-safe.
 */
final class Wrk {
    private Wrk() {
    }

    /** @param rps requests/s; p50, p99 latency in ms */
    record Figures(double rps, double p50, double p99) {
    }

    /** @return whether {@code wrk} runs on this machine */
    static boolean installed() {
        try {
            Process p = new ProcessBuilder("wrk", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /**
     * {@code wrk -t2 -c<connections> -d<seconds>s --latency url}, bounded by {@code seconds} + 30 s.
     *
     * @throws IllegalStateException when wrk fails, hangs, or reports non-2xx answers or socket errors
     */
    static Figures run(String url, int connections, int seconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("wrk", "-t2", "-c" + connections, "-d" + seconds + "s", "--latency", url)
                .redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(seconds + 30L, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("wrk did not finish");
        }
        return parse(new String(out, StandardCharsets.UTF_8));
    }

    /** Reads requests/s and the 50 % and 99 % latencies of a {@code wrk --latency} report. */
    static Figures parse(String text) {
        if (text.contains("Non-2xx") || text.contains("Socket errors")) {
            throw new IllegalStateException("wrk saw errors:\n" + text);
        }
        return new Figures(number(text, "Requests/sec:\\s+([0-9.]+)"), millis(text, "50%"), millis(text, "99%"));
    }

    private static double number(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        if (!m.find()) {
            throw new IllegalStateException("no " + regex + " in wrk output:\n" + text);
        }
        return Double.parseDouble(m.group(1));
    }

    private static double millis(String text, String percentile) {
        Matcher m = Pattern.compile("\\s" + Pattern.quote(percentile) + "\\s+([0-9.]+)(us|ms|s)").matcher(text);
        if (!m.find()) {
            throw new IllegalStateException("no " + percentile + " in wrk output:\n" + text);
        }
        double v = Double.parseDouble(m.group(1));
        return m.group(2).equals("us") ? v / 1000 : m.group(2).equals("s") ? v * 1000 : v;
    }
}
