package dev.vitals.kubesim.fault;

import dev.vitals.kubesim.input.InvalidInputException;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * HTTP load, with the JDK {@link HttpClient}: the scenario's {@code load} action ({@link Spec},
 * {@link #start}: {@code count} requests at most {@code concurrency} at a time, each with its own
 * timeout; bounded in count, concurrency and time; threads {@code vitals-kubesim-load-…}) and
 * replay's sustained load ({@link Sustained}, {@link #sustain}: closed-loop clients for a time;
 * threads {@code vitals-replay-load-…}).
 */
public final class LoadGenerator {
    private LoadGenerator() {
    }

    /**
     * @param count requests in total (1–100000)
     * @param concurrency requests in flight at most (1–1000)
     * @param method HTTP method
     * @param path path and query
     * @param port target port on the pod IP, or {@value #APP_PORT}: the target's application port
     *        ({@code ActionRunner.Target.appPort()}; replay's loads, whose port is picked per run)
     * @param timeout per-request timeout
     */
    public record Spec(int count, int concurrency, String method, String path, int port, Duration timeout) {
        /**
         * Validates the components.
         *
         * @param count requests in total (1–100000)
         * @param concurrency requests in flight at most (1–1000)
         * @param method HTTP method
         * @param path path and query
         * @param port target port on the pod IP, or {@value LoadGenerator#APP_PORT}: the target's application port
         * @param timeout per-request timeout
         * @throws InvalidInputException if a component is outside its documented range
         * @throws NullPointerException if a required component is null
         */
        public Spec {
            if (count < 1 || count > 100_000) {
                throw new InvalidInputException("load: count must be 1-100000, was " + count);
            }
            if (concurrency < 1 || concurrency > 1000) {
                throw new InvalidInputException("load: concurrency must be 1-1000, was " + concurrency);
            }
            if (port < APP_PORT || port > 65535) {
                throw new InvalidInputException("load: port must be 1-65535, was " + port);
            }
            if (timeout.isNegative() || timeout.isZero()) {
                throw new InvalidInputException("load: timeout must be > 0");
            }
            Objects.requireNonNull(method, "method");
            Objects.requireNonNull(path, "path");
        }

        /**
         * @param port the port to send to
         * @return this load aimed at {@code port}
         */
        public Spec at(int port) {
            return new Spec(count, concurrency, method, path, port, timeout);
        }

        /** @return a short description */
        public String describe() {
            return count + " × " + method + " :" + port + path + " @" + concurrency + " (timeout " + timeout.toMillis() + " ms)";
        }
    }

    /**
     * Totals of one load action.
     *
     * @param sent requests sent
     * @param ok answered with a status below 400
     * @param httpErrors answered with 400 or above
     * @param timeouts timed out
     * @param failed failed to connect or broke
     * @param p50Ms median latency of answered requests
     * @param p99Ms 99th percentile latency of answered requests
     */
    public record Stats(int sent, int ok, int httpErrors, int timeouts, int failed, double p50Ms, double p99Ms) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%d sent: %d ok, %d http errors, %d timeouts, %d failed; p50 %.0f ms, p99 %.0f ms",
                    sent, ok, httpErrors, timeouts, failed, p50Ms, p99Ms);
        }
    }

    /**
     * Sustained closed-loop load: {@code clients} clients each send {@code GET} again as soon as the
     * previous answer arrived, until {@code sustain} has passed; client {@code n} sends
     * {@code paths[n mod paths.size()]}. After a refused or broken connection a client waits 250 ms.
     *
     * @param clients concurrent clients, 1–1000
     * @param paths paths and queries (at least one, each starting with {@code /})
     * @param port target port, or {@value LoadGenerator#APP_PORT}: the target's application port
     * @param sustain how long new requests are sent, &gt; 0
     * @param timeout per-request timeout, &gt; 0
     */
    public record Sustained(int clients, List<String> paths, int port, Duration sustain, Duration timeout) {
        /**
         * Validates the components and copies the paths (unmodifiable).
         *
         * @param clients concurrent clients, 1–1000
         * @param paths paths and queries (at least one, each starting with {@code /})
         * @param port target port, or {@value LoadGenerator#APP_PORT}: the target's application port
         * @param sustain how long new requests are sent, &gt; 0
         * @param timeout per-request timeout, &gt; 0
         * @throws IllegalArgumentException if a component is outside its documented range
         * @throws NullPointerException if a required component is null
         */
        public Sustained {
            if (clients < 1 || clients > 1000) {
                throw new IllegalArgumentException("load: clients must be 1-1000, was " + clients);
            }
            paths = List.copyOf(paths);
            if (paths.isEmpty() || paths.stream().anyMatch(p -> !p.startsWith("/"))) {
                throw new IllegalArgumentException("load: paths must be at least one, each starting with '/', was " + paths);
            }
            if (port < APP_PORT || port > 65535) {
                throw new IllegalArgumentException("load: port must be 1-65535, was " + port);
            }
            for (Duration d : new Duration[] {sustain, timeout}) {
                if (Objects.requireNonNull(d, "duration").isNegative() || d.isZero()) {
                    throw new IllegalArgumentException("load: sustain and timeout must be > 0, was " + d);
                }
            }
        }

        /**
         * @param port the port to send to
         * @return this load aimed at {@code port}
         */
        public Sustained at(int port) {
            return new Sustained(clients, paths, port, sustain, timeout);
        }

        /** @return a short description */
        public String describe() {
            return String.format(Locale.ROOT, "%d clients re-sending for %ds", clients, sustain.toSeconds());
        }
    }

    /** Port 0 in a load: the target's application port, resolved when the load starts. */
    public static final int APP_PORT = 0;

    /** A running load; {@link #cancel()} stops sending more. */
    public interface Handle {
        /** Stops sending; requests in flight end by their timeout. */
        void cancel();

        /** @return the totals so far, one line; empty for a load that reports them only at its end */
        default String totals() {
            return "";
        }
    }

    /**
     * Starts a sustained load in the background.
     *
     * @param spec what to send
     * @param host target host
     * @return a handle to stop it at once ({@link Handle#totals()} reads its totals so far)
     */
    public static Handle sustain(Sustained spec, String host) {
        return SustainedLoad.start(spec, host);
    }

    /**
     * Starts sending in the background.
     *
     * @param spec what to send
     * @param host target host (the pod IP)
     * @param onDone receives the totals when the last request ends (from a load thread)
     * @return a handle to cancel
     */
    public static Handle start(Spec spec, String host, Consumer<Stats> onDone) {
        AtomicInteger next = new AtomicInteger();
        Tally tally = new Tally();
        AtomicInteger threadNo = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(spec.concurrency(), r -> {
            Thread t = new Thread(r, "vitals-kubesim-load-" + threadNo.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(spec.timeout()).build();
        URI uri = URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + spec.port()
                + (spec.path().startsWith("/") ? "" : "/") + spec.path());
        AtomicInteger workersLeft = new AtomicInteger(spec.concurrency());
        for (int i = 0; i < spec.concurrency(); i++) {
            pool.execute(() -> {
                try {
                    while (next.getAndIncrement() < spec.count() && !pool.isShutdown()) {
                        if (!send(client, uri, spec, tally)) {
                            break; // interrupted
                        }
                    }
                } finally {
                    if (workersLeft.decrementAndGet() == 0) {
                        onDone.accept(tally.stats());
                        pool.shutdown();
                    }
                }
            });
        }
        return () -> {
            next.set(Integer.MAX_VALUE / 2);
            pool.shutdown();
            try {
                // requests in flight finish (each within its timeout), so the totals are complete
                if (!pool.awaitTermination(spec.timeout().toMillis() + 1000, TimeUnit.MILLISECONDS)) {
                    // a loaded machine ran a timeout late: interrupt what is left (counted as failed), so
                    // the totals still reach onDone before the caller reads them
                    pool.shutdownNow();
                    pool.awaitTermination(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

    /**
     * Sends one request and counts its outcome.
     *
     * @return false when interrupted (counted as failed): the worker stops
     */
    private static boolean send(HttpClient client, URI uri, Spec spec, Tally tally) {
        long t0 = System.nanoTime();
        try {
            HttpResponse<Void> r = client.send(HttpRequest.newBuilder(uri).timeout(spec.timeout())
                    .method(spec.method(), HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.discarding());
            tally.answered(r.statusCode(), (System.nanoTime() - t0) / 1e6);
        } catch (HttpTimeoutException e) {
            tally.timeouts.incrementAndGet();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            tally.failed.incrementAndGet();
            return false;
        } catch (Exception e) {
            tally.failed.incrementAndGet();
        }
        return true;
    }

    /** A load's outcomes so far and the answered requests' latencies; thread-safe. */
    private static final class Tally {
        private final AtomicInteger ok = new AtomicInteger();
        private final AtomicInteger httpErr = new AtomicInteger();
        private final AtomicInteger timeouts = new AtomicInteger();
        private final AtomicInteger failed = new AtomicInteger();
        private final List<Double> lat = new ArrayList<>();

        /** An answer: 2xx/3xx ok, else an HTTP error; its latency, ms. */
        void answered(int status, double ms) {
            synchronized (lat) {
                lat.add(ms);
            }
            (status < 400 ? ok : httpErr).incrementAndGet();
        }

        Stats stats() {
            double[] a;
            synchronized (lat) {
                a = lat.stream().mapToDouble(Double::doubleValue).toArray();
            }
            Arrays.sort(a);
            int sent = ok.get() + httpErr.get() + timeouts.get() + failed.get();
            return new Stats(sent, ok.get(), httpErr.get(), timeouts.get(), failed.get(), pct(a, 50), pct(a, 99));
        }
    }

    private static double pct(double[] a, int p) {
        if (a.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p / 100.0 * a.length);
        return a[Math.max(0, Math.min(a.length - 1, rank - 1))];
    }

}
