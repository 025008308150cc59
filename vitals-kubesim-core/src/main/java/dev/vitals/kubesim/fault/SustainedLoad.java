package dev.vitals.kubesim.fault;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sustained closed-loop load ({@link LoadGenerator.Sustained}, started by {@link LoadGenerator#sustain}):
 * {@code clients} threads, each sending the next request as soon as the previous one ends, until
 * {@code sustain} has passed (a time bound, where {@link LoadGenerator.Spec} has a count bound: a
 * restarted target refuses connections for a while, and a count would be spent on refusals within
 * milliseconds). Client {@code n} sends {@code paths[n mod paths.size()]}. After a
 * refused or broken connection a client waits {@value #RETRY_MS} ms before trying again, like
 * a client with a back-off, so a restart costs no CPU storm. Requests still in flight at the end
 * of {@code sustain} run on until they end or {@link #stop()}.
 *
 * <p>Threads are daemons named {@code vitals-replay-load-N}. Bounded: {@code clients} threads,
 * each with at most one request in flight, for at most {@code sustain} plus one request
 * timeout. Thread-safe.
 */
final class SustainedLoad implements LoadGenerator.Handle {
    static final long RETRY_MS = 250;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicInteger sent = new AtomicInteger();
    private final AtomicInteger ok = new AtomicInteger();
    private final AtomicInteger httpErrors = new AtomicInteger();
    private final AtomicInteger timeouts = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicLong okNanos = new AtomicLong();
    private volatile long endNanos;
    private volatile boolean stopped;

    private SustainedLoad() {
    }

    /**
     * Starts the clients.
     *
     * @param spec what to send
     * @param host the target host
     * @return the running load
     */
    static SustainedLoad start(LoadGenerator.Sustained spec, String host) {
        SustainedLoad load = new SustainedLoad();
        Duration timeout = spec.timeout();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        for (int i = 0; i < spec.clients(); i++) {
            int n = i;
            URI uri = URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + spec.port()
                    + spec.paths().get(n % spec.paths().size()));
            Thread t = new Thread(() -> load.client(http, uri, timeout), "vitals-replay-load-" + (n + 1));
            t.setDaemon(true);
            load.threads.add(t);
        }
        load.endNanos = System.nanoTime() + spec.sustain().toNanos(); // from now: building the client can take a while
        load.threads.forEach(Thread::start);
        return load;
    }

    private void client(HttpClient http, URI uri, Duration timeout) {
        HttpRequest req = HttpRequest.newBuilder(uri).timeout(timeout).GET().build();
        while (!stopped && System.nanoTime() < endNanos) {
            long t0 = System.nanoTime();
            sent.incrementAndGet();
            try {
                HttpResponse<Void> r = http.send(req, HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() < 400) {
                    ok.incrementAndGet();
                    okNanos.addAndGet(System.nanoTime() - t0);
                } else {
                    httpErrors.incrementAndGet();
                }
            } catch (HttpTimeoutException e) {
                timeouts.incrementAndGet();
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                failed.incrementAndGet();
                try {
                    TimeUnit.MILLISECONDS.sleep(RETRY_MS);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    /** Stops at once: no new requests, requests in flight are abandoned. Idempotent. */
    @Override
    public void cancel() {
        stopped = true;
        threads.forEach(Thread::interrupt);
    }

    /** @return whether a client is still running (sending, or waiting for an answer) */
    boolean running() {
        return threads.stream().anyMatch(Thread::isAlive);
    }

    /** @return requests sent so far */
    int sent() {
        return sent.get();
    }

    /** @return requests answered below 400 so far */
    int ok() {
        return ok.get();
    }

    @Override
    public String totals() {
        int o = ok.get();
        return String.format(Locale.ROOT, "%d sent: %d ok (mean %.1f s), %d http errors, %d timeouts, %d refused/broken",
                sent.get(), o, o == 0 ? 0.0 : okNanos.get() / 1e9 / o, httpErrors.get(), timeouts.get(), failed.get());
    }
}
