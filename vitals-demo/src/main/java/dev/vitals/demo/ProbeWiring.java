package dev.vitals.demo;

import java.time.Duration;
import java.util.OptionalInt;

/** The part of the demo that differs between {@code --wiring naive} and {@code --wiring vitals}. */
interface ProbeWiring extends AutoCloseable {
    /** Called before initialization (migrations, warm-up) begins; starts the probe listener, if any. */
    void beforeInit() throws Exception;

    /** Called once initialization is done and the application listener accepts. */
    void startupComplete();

    /** @return the bound probe port, if this wiring has a probe listener */
    OptionalInt probePort();

    /** @return the bound gRPC health port, if this wiring serves gRPC health ({@code --grpc-port}) */
    default OptionalInt grpcPort() {
        return OptionalInt.empty();
    }

    /** @return the bound Prometheus metrics port, if this wiring serves metrics ({@code --metrics-port}) */
    default OptionalInt metricsPort() {
        return OptionalInt.empty();
    }

    /**
     * SIGTERM: fail readiness and keep serving for {@code delay}; returns when the delay has
     * passed (at once for a wiring that does not drain).
     */
    void drain(Duration delay) throws InterruptedException;

    /** Stops the probe listener and anything else this wiring started. Idempotent, never throws. */
    @Override
    void close();

    /** The naive wiring: {@code /healthz} lives on the application port (see {@link AppServer}). */
    final class Naive implements ProbeWiring {
        @Override
        public void beforeInit() {
        }

        @Override
        public void startupComplete() {
        }

        @Override
        public OptionalInt probePort() {
            return OptionalInt.empty();
        }

        @Override
        public void drain(Duration delay) {
        }

        @Override
        public void close() {
        }
    }
}
