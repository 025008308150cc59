package dev.vitals.monitor;

import dev.vitals.Groups;
import dev.vitals.Health;
import dev.vitals.Status;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Objects;

/**
 * Checks that the application's own listener (its main HTTP port) still accepts connections
 * (field case C06: an isolated probe port kept answering UP while the main port was dead). Every
 * interval it opens a TCP connection to the listener and closes it at once; it sends nothing. The
 * kernel completes the handshake from the listen backlog, so no application worker thread is
 * needed, and a saturated server whose workers are all busy still accepts.
 *
 * <p>The connect is non-blocking: it is started on Vitals' scheduler and polled there (backing
 * off from 1 ms to 50 ms) until it completes, fails or reaches {@code connectTimeout}; no thread
 * waits on it. At most one attempt is in flight.
 *
 * <p><b>The rule.</b>
 * <ul>
 *   <li>Accepted: {@link Status#UP}.</li>
 *   <li>Refused (nothing listens: the listener was closed or lost) or another I/O error, at every
 *       attempt for at least {@code grace} (default 10 s, measured from the first failed attempt):
 *       {@link Status#DOWN}, because a restart cures a lost listener. Within the grace:
 *       {@link Status#DEGRADED}.</li>
 *   <li>Timed out: the kernel neither accepted nor refused, which is what a full accept backlog
 *       looks like, on a server that is merely saturated as well as on a wedged one. Timeouts
 *       alone are {@link Status#DEGRADED} and never DOWN, so a saturated-but-alive server is never
 *       restarted by this check. If you want a wedged listener to fail too, set
 *       {@code timeoutDownAfter} (at least 60 s and at least the grace): DOWN once every attempt
 *       has timed out for that long.</li>
 * </ul>
 * {@link #check()} registers in {@code liveness}; add {@code readiness} too if a lost listener
 * should also take the pod out of the endpoints at once. Details: {@code port}, {@code result},
 * {@code connectMs}, {@code lostForMs}, {@code timingOutForMs}, {@code graceMs}.
 *
 * <p>Point it at a loopback address (the default, {@code 127.0.0.1}) when the listener binds to
 * all interfaces; a listener bound to one interface needs that address. Each attempt costs one
 * socket, closed at once (leaving a TIME_WAIT entry on the client side); the application sees an
 * accepted connection that closes without a request.
 *
 * <p>Thread-safe. Defaults: interval 5 s, connectTimeout 2 s, grace 10 s, no timeoutDownAfter.
 */
public final class ListenerMonitor extends AbstractMonitor<ListenerSnapshot> {
    /** Private: a check that synchronises on this monitor cannot stop its sampling (issue 30). */
    private final Object lock = new Object();
    /** Default time between connect attempts: 5 s. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(5);
    /** Default connect timeout: 2 s. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /** Default time connections must keep being refused before the check is DOWN: 10 s. */
    public static final Duration DEFAULT_GRACE = Duration.ofSeconds(10);
    /** Least {@code timeoutDownAfter}: 60 s. */
    public static final Duration MIN_TIMEOUT_DOWN_AFTER = Duration.ofSeconds(60);
    private static final long FIRST_POLL_NANOS = 1_000_000L;
    private static final long MAX_POLL_NANOS = 50_000_000L;

    private final InetSocketAddress address;
    private final Duration connectTimeout;
    private final long connectTimeoutNanos;
    private final Duration grace;
    private final Duration timeoutDownAfter;

    // Guarded by this.
    private SocketChannel inFlight;
    private long attemptStart;
    private long pollNanos;
    private long lostSince = -1;
    private long timeoutSince = -1;

    private ListenerMonitor(Builder b) {
        super(b);
        this.address = b.address;
        this.connectTimeout = b.connectTimeout;
        this.connectTimeoutNanos = b.connectTimeout.toNanos();
        this.grace = b.grace;
        this.timeoutDownAfter = b.timeoutDownAfter;
    }

    /**
     * Watches {@code 127.0.0.1:port}.
     *
     * @param name the monitor's (and its check's) name: letters, digits, {@code . _ -}
     * @param port the listener's port, 1–65535
     * @return a builder with the defaults
     * @throws NullPointerException if {@code name} is null
     * @throws IllegalArgumentException if {@code name} is invalid or {@code port} out of range
     */
    public static Builder builder(String name, int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be 1-65535, was " + port);
        }
        return builder(name, new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    }

    /**
     * Watches a listener at {@code address} (resolved; normally loopback).
     *
     * @param name the monitor's (and its check's) name: letters, digits, {@code . _ -}
     * @param address the listener's address and port
     * @return a builder with the defaults
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code name} is invalid or {@code address} is unresolved
     *     or has port 0
     */
    public static Builder builder(String name, InetSocketAddress address) {
        Objects.requireNonNull(address, "address");
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("address must be resolved, was " + address);
        }
        if (address.getPort() == 0) {
            throw new IllegalArgumentException("address must have a port, was " + address);
        }
        return new Builder(name, address);
    }

    /** @return the watched address */
    public InetSocketAddress address() {
        return address;
    }

    @Override
    String defaultGroup() {
        return Groups.LIVENESS;
    }

    @Override
    void sample(long now) {
        synchronized (lock) {
            if (inFlight != null) {
                return; // the previous attempt is still connecting; its timeout bounds it
            }
            attemptStart = now;
            SocketChannel ch = null;
            try {
                ch = SocketChannel.open();
                ch.configureBlocking(false);
                if (ch.connect(address)) {
                    finish(ch, ListenerSnapshot.Result.ACCEPTED, now);
                    return;
                }
                inFlight = ch;
                pollNanos = FIRST_POLL_NANOS;
                if (!scheduleOnce(pollNanos, this::poll)) {
                    closeQuietly(ch);
                    inFlight = null;
                }
            } catch (ConnectException e) {
                finish(ch, ListenerSnapshot.Result.REFUSED, now);
            } catch (IOException | RuntimeException e) {
                finish(ch, ListenerSnapshot.Result.ERROR, now);
            }
        }
    }

    private void poll() {
        synchronized (lock) {
            SocketChannel ch = inFlight;
            if (ch == null) {
                return;
            }
            long now = clock().monotonicTime();
            try {
                if (ch.finishConnect()) {
                    finish(ch, ListenerSnapshot.Result.ACCEPTED, now);
                    return;
                }
                long left = connectTimeoutNanos - (now - attemptStart);
                if (left <= 0) {
                    finish(ch, ListenerSnapshot.Result.TIMED_OUT, now);
                    return;
                }
                pollNanos = Math.min(pollNanos * 2, MAX_POLL_NANOS);
                if (!scheduleOnce(Math.min(pollNanos, left), this::poll)) {
                    closeQuietly(ch);
                    inFlight = null;
                }
            } catch (ConnectException e) {
                finish(ch, ListenerSnapshot.Result.REFUSED, now);
            } catch (IOException | RuntimeException e) {
                finish(ch, ListenerSnapshot.Result.ERROR, now);
            }
        }
    }

    private void finish(SocketChannel ch, ListenerSnapshot.Result result, long now) {
        closeQuietly(ch);
        inFlight = null;
        long lostFor = 0;
        long timingOutFor = 0;
        switch (result) {
            case ACCEPTED:
                lostSince = -1;
                timeoutSince = -1;
                break;
            case TIMED_OUT:
                lostSince = -1;
                if (timeoutSince < 0) {
                    timeoutSince = attemptStart;
                }
                timingOutFor = now - timeoutSince;
                break;
            default:
                timeoutSince = -1;
                if (lostSince < 0) {
                    lostSince = attemptStart;
                }
                lostFor = now - lostSince;
                break;
        }
        publish(new ListenerSnapshot(result, Duration.ofNanos(Math.max(0, now - attemptStart)),
                Duration.ofNanos(Math.max(0, lostFor)), Duration.ofNanos(Math.max(0, timingOutFor))));
    }

    private static void closeQuietly(SocketChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException e) {
                // nothing to do: the attempt is over either way
            }
        }
    }

    @Override
    void onClose() {
        synchronized (lock) {
            closeQuietly(inFlight);
            inFlight = null;
        }
    }

    @Override
    Health assess(ListenerSnapshot s) {
        Status status;
        String message = null;
        switch (s.result()) {
            case ACCEPTED:
                status = Status.UP;
                break;
            case TIMED_OUT:
                boolean wedged = timeoutDownAfter != null && s.timingOutFor().compareTo(timeoutDownAfter) >= 0;
                status = wedged ? Status.DOWN : Status.DEGRADED;
                message = "connect to port " + address.getPort() + " timed out after " + connectTimeout.toMillis()
                        + " ms for " + s.timingOutFor().toMillis() + " ms (accept backlog full or listener wedged)";
                break;
            default:
                status = s.lostFor().compareTo(grace) >= 0 ? Status.DOWN : Status.DEGRADED;
                message = "listener on port " + address.getPort() + " lost: connections "
                        + (s.result() == ListenerSnapshot.Result.REFUSED ? "refused" : "failing")
                        + " for " + s.lostFor().toMillis() + " ms (grace " + grace.toMillis() + " ms)";
                break;
        }
        Health.Builder b = Health.builder(status)
                .detail("port", address.getPort())
                .detail("result", s.result().name())
                .detail("connectMs", s.connectTime().toMillis())
                .detail("lostForMs", s.lostFor().toMillis())
                .detail("timingOutForMs", s.timingOutFor().toMillis())
                .detail("graceMs", grace.toMillis());
        if (message != null) {
            b.message(message);
        }
        return b.build();
    }

    @Override
    String settings() {
        return "address=" + address;
    }

    /** Builds a {@link ListenerMonitor}. Not thread-safe. */
    public static final class Builder extends AbstractMonitor.Builder<Builder> {
        private final InetSocketAddress address;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration grace = DEFAULT_GRACE;
        private Duration timeoutDownAfter;

        private Builder(String name, InetSocketAddress address) {
            super(name, DEFAULT_INTERVAL, Duration.ofMillis(10));
            this.address = address;
        }

        /**
         * @param connectTimeout how long an attempt may take before it counts as timed out, at
         *     least 10 ms and at most the interval (checked in {@link #build()}); default 2 s
         * @return this builder
         * @throws NullPointerException if {@code connectTimeout} is null
         * @throws IllegalArgumentException if it is under 10 ms
         */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = requireAtLeast(name, "connectTimeout", connectTimeout, Duration.ofMillis(10));
            return this;
        }

        /**
         * @param grace how long every attempt must be refused before the check is DOWN, zero or
         *     more; default 10 s
         * @return this builder
         * @throws NullPointerException if {@code grace} is null
         * @throws IllegalArgumentException if it is negative
         */
        public Builder grace(Duration grace) {
            this.grace = requireAtLeast(name, "grace", grace, Duration.ZERO);
            return this;
        }

        /**
         * Makes persistent timeouts fail the check too: DOWN once every attempt has timed out for
         * this long. Off by default (timeouts alone never make the check DOWN).
         *
         * @param timeoutDownAfter at least 60 s and at least the grace (checked in {@link #build()})
         * @return this builder
         * @throws NullPointerException if {@code timeoutDownAfter} is null
         * @throws IllegalArgumentException if it is under 60 s
         */
        public Builder timeoutDownAfter(Duration timeoutDownAfter) {
            this.timeoutDownAfter = requireAtLeast(name, "timeoutDownAfter", timeoutDownAfter, MIN_TIMEOUT_DOWN_AFTER);
            return this;
        }

        /**
         * @return the monitor, not started
         * @throws IllegalArgumentException if connectTimeout exceeds the interval, or
         *     timeoutDownAfter is shorter than the grace
         */
        public ListenerMonitor build() {
            if (connectTimeout.compareTo(interval) > 0) {
                throw new IllegalArgumentException("monitor '" + name + "': connectTimeout must be at most interval ("
                        + interval + "), was " + connectTimeout);
            }
            if (timeoutDownAfter != null && timeoutDownAfter.compareTo(grace) < 0) {
                throw new IllegalArgumentException("monitor '" + name + "': timeoutDownAfter must be at least grace ("
                        + grace + "), was " + timeoutDownAfter);
            }
            return new ListenerMonitor(this);
        }
    }
}
