package dev.vitals.bench.suite;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Closed-loop application load with the JDK's {@link HttpClient}: {@code concurrency} requests in
 * flight at all times, each followed by the next as soon as it ends, until the deadline or
 * {@link #close()}. Requests outstanding at the end are abandoned (the target is killed next).
 * Thread-safe.
 */
final class SlowLoad implements AutoCloseable {
    private final ExecutorService executor = Executors.newFixedThreadPool(4, r -> {
        Thread t = new Thread(r, "vitals-bench-http");
        t.setDaemon(true);
        return t;
    });
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).executor(executor).build();
    private final Supplier<URI> uris;
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final AtomicInteger ok = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private volatile long deadline;

    /** @param uris the next request's URI (called on client threads) */
    SlowLoad(Supplier<URI> uris) {
        this.uris = uris;
    }

    /** Starts {@code concurrency} loops that stop issuing requests after {@code duration}. */
    void start(int concurrency, Duration duration) {
        deadline = System.nanoTime() + duration.toNanos();
        for (int i = 0; i < concurrency; i++) {
            next();
        }
    }

    private void next() {
        if (stopped.get() || System.nanoTime() - deadline >= 0) {
            return;
        }
        HttpRequest request = HttpRequest.newBuilder(uris.get()).timeout(Duration.ofSeconds(90)).GET().build();
        client.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((r, e) -> {
            if (e == null && r.statusCode() == 200) {
                ok.incrementAndGet();
            } else if (!stopped.get()) {
                failed.incrementAndGet();
            }
            next();
        });
    }

    /** @return application requests answered 200 so far */
    int ok() {
        return ok.get();
    }

    /** @return application requests failed so far (before {@link #close()}) */
    int failed() {
        return failed.get();
    }

    @Override
    public void close() {
        stopped.set(true);
        executor.shutdownNow();
    }
}
