package dev.vitals.grpc;

import dev.vitals.Check;
import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Check throughput and latency at 16 concurrent streams on one connection, side by side in one
 * run: grpc-java's HealthStatusManager on a plain grpc-java server (defaults; and with a direct
 * executor, for reference) against Vitals' GrpcHealthServer with a registry of 10 scheduled
 * checks behind it. Short rounds alternate the targets, so a shared, busy machine's load swings
 * reach all three alike; Check/s is the median of the rounds, p50/p99 are over every call.
 *
 * <p>Run: {@code mvn -B -pl vitals-grpc -am verify -Dtest=GrpcCheckBenchmark
 * -Dsurefire.failIfNoSpecifiedTests=false -Dvitals.excludedTestGroups= -Dgroups=benchmark}
 * (system properties {@code bench.seconds} per round, default 1, and {@code bench.rounds}, default 20).
 */
@Tag("benchmark")
class GrpcCheckBenchmark {
    private static final int STREAMS = 16;

    @Test
    void checkThroughputSideBySide() throws Exception {
        int seconds = Integer.getInteger("bench.seconds", 1);
        int rounds = Integer.getInteger("bench.rounds", 20);
        HealthStatusManager manager = new HealthStatusManager();
        manager.setStatus("", HealthCheckResponse.ServingStatus.SERVING);
        Server plain = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .addService(manager.getHealthService()).build().start();
        Server plainDirect = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .directExecutor().addService(manager.getHealthService()).build().start();
        HealthRegistry.Builder rb = HealthRegistry.builder();
        for (int i = 0; i < 10; i++) {
            rb.register(Check.builder("check-" + i, Health::up).groups(Groups.READINESS).interval(Duration.ofSeconds(1)).build());
        }
        HealthRegistry registry = rb.build();
        registry.start();
        GrpcHealthServer vitals = GrpcHealthServer.builder(registry).port(0)
                .eventLoopThreads(Integer.getInteger("bench.vitalsThreads", 1))
                .maxCallsPerConnection(Integer.getInteger("bench.vitalsCalls", 32))
                .flowControlWindow(Integer.getInteger("bench.vitalsWindow", 65_535))
                .bindAddress(InetAddress.getLoopbackAddress()).build().start();
        String[] names = {"HealthStatusManager, plain grpc-java server", "HealthStatusManager, direct executor", "Vitals GrpcHealthServer (registry, 10 checks)"};
        int[] ports = {plain.getPort(), plainDirect.getPort(), vitals.port()};
        double[][] rps = new double[3][rounds];
        long[][] hists = new long[3][100_000];
        try {
            for (int t = 0; t < 3; t++) {
                run(ports[t], 2, new long[100_000]); // warm-up
            }
            for (int round = 0; round < rounds; round++) {
                for (int t = 0; t < 3; t++) {
                    rps[t][round] = run(ports[t], seconds, hists[t]);
                }
            }
        } finally {
            vitals.stop(Duration.ofSeconds(1));
            registry.close();
            plain.shutdownNow();
            plainDirect.shutdownNow();
        }
        StringBuilder out = new StringBuilder();
        out.append(String.format("%nCheck, %d concurrent streams on one connection, %d rounds x %d s, load average %.2f (%d cores)%n",
                STREAMS, rounds, seconds, ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                Runtime.getRuntime().availableProcessors()));
        out.append("| server | Check/s (median) | p50 ms | p99 ms | ratio to plain |\n|---|---|---|---|---|\n");
        double ref = median(rps[0]);
        for (int t = 0; t < 3; t++) {
            long n = Arrays.stream(hists[t]).sum();
            out.append(String.format("| %s | %.0f | %.2f | %.2f | %.2f |%n", names[t], median(rps[t]),
                    percentile(hists[t], n, 0.50), percentile(hists[t], n, 0.99), median(rps[t]) / ref));
        }
        out.append("(10 µs latency buckets) rounds, Check/s: ");
        for (int t = 0; t < 3; t++) {
            out.append(Arrays.toString(Arrays.stream(rps[t]).map(Math::rint).toArray())).append(' ');
        }
        System.out.println(out);
    }

    /** Closed loop: 16 calls always in flight for {@code seconds}; latencies into {@code hist}; returns req/s. */
    private static double run(int port, int seconds, long[] hist) throws InterruptedException, IOException {
        ManagedChannel ch = Clients.channel(port);
        try {
            HealthGrpc.HealthStub stub = HealthGrpc.newStub(ch);
            HealthCheckRequest req = HealthCheckRequest.getDefaultInstance();
            HealthGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS).check(req);
            AtomicLong done = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch finished = new CountDownLatch(STREAMS);
            long start = System.nanoTime();
            for (int i = 0; i < STREAMS; i++) {
                new Caller(stub, req, hist, done, stop, finished).next();
            }
            Thread.sleep(seconds * 1000L);
            stop.set(true);
            long elapsed = System.nanoTime() - start;
            finished.await(20, TimeUnit.SECONDS);
            return done.get() / (elapsed / 1e9);
        } finally {
            ch.shutdownNow();
        }
    }

    private static double percentile(long[] hist, long n, double q) {
        long want = (long) Math.ceil(n * q);
        long seen = 0;
        for (int i = 0; i < hist.length; i++) {
            seen += hist[i];
            if (seen >= want) {
                return (i + 1) * 0.01;
            }
        }
        return hist.length * 0.01;
    }

    private static double median(double[] v) {
        double[] c = v.clone();
        Arrays.sort(c);
        return c[c.length / 2];
    }

    private static final class Caller implements StreamObserver<HealthCheckResponse> {
        private final HealthGrpc.HealthStub stub;
        private final HealthCheckRequest req;
        private final long[] hist;
        private final AtomicLong done;
        private final AtomicBoolean stop;
        private final CountDownLatch finished;
        private long t0;

        Caller(HealthGrpc.HealthStub stub, HealthCheckRequest req, long[] hist, AtomicLong done, AtomicBoolean stop,
                CountDownLatch finished) {
            this.stub = stub;
            this.req = req;
            this.hist = hist;
            this.done = done;
            this.stop = stop;
            this.finished = finished;
        }

        void next() {
            if (stop.get()) {
                finished.countDown();
                return;
            }
            t0 = System.nanoTime();
            stub.check(req, this);
        }

        @Override
        public void onNext(HealthCheckResponse value) {
            long us10 = (System.nanoTime() - t0) / 10_000;
            synchronized (hist) {
                hist[(int) Math.min(us10, hist.length - 1)]++;
            }
            done.incrementAndGet();
        }

        @Override
        public void onError(Throwable t) {
            finished.countDown();
        }

        @Override
        public void onCompleted() {
            next();
        }
    }
}
