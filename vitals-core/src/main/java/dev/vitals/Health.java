package dev.vitals;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The immutable result of one execution of a check: status, optional details, optional error
 * type and message, how long the execution took and when it was observed.
 *
 * <p>Create one with the factories ({@link #up()}, {@link #degraded(String)},
 * {@link #down(String)}, {@link #down(Throwable)}, {@link #unknown(String)}) or with
 * {@link #builder(Status)}; add details by copying ({@link #withDetail(String, Object)}).
 * The engine adds timing by copying too ({@link #withTiming(Duration, Instant)}); a health
 * created by a check has {@link Duration#ZERO} and {@link Instant#EPOCH} until then.
 *
 * <p>Details are kept in an unmodifiable map sorted by key, so reports are byte-stable.
 * Detail values are {@link String}, {@link Number} or {@link Boolean}; anything else is
 * stored as its {@code toString()}. Probe endpoints show details, error types and messages
 * only when the operator's details policy allows it.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class Health {
    private static final Health UP = new Health(Status.UP, Map.of(), null, null, Duration.ZERO, Instant.EPOCH);

    private final Status status;
    private final Map<String, Object> details;
    private final String errorType;
    private final String message;
    private final Duration duration;
    private final Instant observedAt;

    private Health(Status status, Map<String, Object> details, String errorType, String message,
                   Duration duration, Instant observedAt) {
        this.status = status;
        this.details = details;
        this.errorType = errorType;
        this.message = message;
        this.duration = duration;
        this.observedAt = observedAt;
    }

    /** @return a health with status {@link Status#UP} and nothing else */
    public static Health up() {
        return UP;
    }

    /**
     * @param message why the check is degraded
     * @return a health with status {@link Status#DEGRADED} and that message
     * @throws NullPointerException if {@code message} is null
     */
    public static Health degraded(String message) {
        return builder(Status.DEGRADED).message(message).build();
    }

    /**
     * @param message why the check failed
     * @return a health with status {@link Status#DOWN} and that message
     * @throws NullPointerException if {@code message} is null
     */
    public static Health down(String message) {
        return builder(Status.DOWN).message(message).build();
    }

    /**
     * A failure caused by an exception or error: status {@link Status#DOWN}, the throwable's
     * class name as error type and its message (if any) as message.
     *
     * @param error what the check threw
     * @return a DOWN health describing {@code error}
     * @throws NullPointerException if {@code error} is null
     */
    public static Health down(Throwable error) {
        Objects.requireNonNull(error, "error");
        Builder b = builder(Status.DOWN).errorType(error.getClass().getName());
        if (error.getMessage() != null) {
            b.message(error.getMessage());
        }
        return b.build();
    }

    /**
     * @param message why no status could be established
     * @return a health with status {@link Status#UNKNOWN} and that message
     * @throws NullPointerException if {@code message} is null
     */
    public static Health unknown(String message) {
        return builder(Status.UNKNOWN).message(message).build();
    }

    /**
     * @param status the status of the health to build
     * @return a new builder
     * @throws NullPointerException if {@code status} is null
     */
    public static Builder builder(Status status) {
        return new Builder(status);
    }

    /** @return the status; never null */
    public Status status() {
        return status;
    }

    /** @return details sorted by key, unmodifiable; empty when there are none */
    public Map<String, Object> details() {
        return details;
    }

    /** @return the fully qualified class name of the error that caused this health, if any */
    public Optional<String> errorType() {
        return Optional.ofNullable(errorType);
    }

    /**
     * @return a human-readable reason (an exception message, "timed out after 2000 ms", "stale"),
     *     if any; may contain sensitive text, so probe bodies show it only when allowed
     */
    public Optional<String> message() {
        return Optional.ofNullable(message);
    }

    /** @return how long the execution took; {@link Duration#ZERO} until the engine times it */
    public Duration duration() {
        return duration;
    }

    /** @return wall-clock time the result was observed; {@link Instant#EPOCH} until the engine stamps it */
    public Instant observedAt() {
        return observedAt;
    }

    /**
     * A copy with one more detail (replacing a detail of the same key).
     *
     * @param key detail name, not blank
     * @param value String, Number or Boolean (other values are stored as {@code toString()})
     * @return the copy
     * @throws NullPointerException if {@code key} or {@code value} is null
     * @throws IllegalArgumentException if {@code key} is blank
     */
    public Health withDetail(String key, Object value) {
        return toBuilder().detail(key, value).build();
    }

    /**
     * A copy with the given timing; used by the engine.
     *
     * @param duration how long the execution took, not negative
     * @param observedAt when it was observed
     * @return the copy
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code duration} is negative
     */
    public Health withTiming(Duration duration, Instant observedAt) {
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(observedAt, "observedAt");
        if (duration.isNegative()) {
            throw new IllegalArgumentException("duration must not be negative, was " + duration);
        }
        return new Health(status, details, errorType, message, duration, observedAt);
    }

    /**
     * A copy with another status and message, keeping details, error type and timing.
     *
     * @param newStatus the status of the copy
     * @param newMessage the message of the copy
     * @return the copy
     * @throws NullPointerException if an argument is null
     */
    public Health withStatus(Status newStatus, String newMessage) {
        return new Health(Objects.requireNonNull(newStatus, "newStatus"), details, errorType,
                Objects.requireNonNull(newMessage, "newMessage"), duration, observedAt);
    }

    /** @return a builder holding this health's status, details, error type and message */
    public Builder toBuilder() {
        Builder b = new Builder(status);
        b.details.putAll(details);
        b.errorType = errorType;
        b.message = message;
        return b;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Health)) {
            return false;
        }
        Health h = (Health) o;
        return status == h.status && details.equals(h.details) && Objects.equals(errorType, h.errorType)
                && Objects.equals(message, h.message) && duration.equals(h.duration) && observedAt.equals(h.observedAt);
    }

    @Override
    public int hashCode() {
        return Objects.hash(status, details, errorType, message, duration, observedAt);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Health{").append(status);
        if (message != null) {
            sb.append(", message=").append(message);
        }
        if (errorType != null) {
            sb.append(", errorType=").append(errorType);
        }
        if (!details.isEmpty()) {
            sb.append(", details=").append(details);
        }
        return sb.append(", durationMs=").append(duration.toMillis()).append('}').toString();
    }

    /** Builds a {@link Health}. Not thread-safe. */
    public static final class Builder {
        private final Status status;
        private final TreeMap<String, Object> details = new TreeMap<>();
        private String errorType;
        private String message;

        private Builder(Status status) {
            this.status = Objects.requireNonNull(status, "status");
        }

        /**
         * @param key detail name, not blank
         * @param value String, Number or Boolean (other values are stored as {@code toString()})
         * @return this builder
         * @throws NullPointerException if {@code key} or {@code value} is null
         * @throws IllegalArgumentException if {@code key} is blank
         */
        public Builder detail(String key, Object value) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
            if (key.isBlank()) {
                throw new IllegalArgumentException("detail key must not be blank");
            }
            boolean plain = value instanceof String || value instanceof Number || value instanceof Boolean;
            details.put(key, plain ? value : value.toString());
            return this;
        }

        /**
         * @param message a human-readable reason
         * @return this builder
         * @throws NullPointerException if {@code message} is null
         */
        public Builder message(String message) {
            this.message = Objects.requireNonNull(message, "message");
            return this;
        }

        /**
         * @param errorType the fully qualified class name of the error behind this health
         * @return this builder
         * @throws NullPointerException if {@code errorType} is null
         */
        public Builder errorType(String errorType) {
            this.errorType = Objects.requireNonNull(errorType, "errorType");
            return this;
        }

        /** @return the immutable health */
        public Health build() {
            Map<String, Object> copy = details.isEmpty() ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(details));
            return new Health(status, copy, errorType, message, Duration.ZERO, Instant.EPOCH);
        }
    }
}
