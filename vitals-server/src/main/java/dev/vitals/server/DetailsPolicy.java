package dev.vitals.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Objects;
import java.util.Optional;

/**
 * Decides whether a probe response may show a check's details, error message and error type
 * (DESIGN.md P9). Statuses and check names are always shown; everything a check or its
 * exception says is not, unless this policy allows it.
 *
 * <ul>
 *   <li>{@link #never()} (the default): nothing beyond statuses; text bodies say
 *       {@code reason withheld}.</li>
 *   <li>{@link #whenAuthorized(String)}: shown only to a request carrying
 *       {@code Authorization: Bearer <token>} with the configured token, compared in constant
 *       time; a missing or wrong token gets the same answer as {@code never} (never a 401, so a
 *       kubelet probe without a token keeps working).</li>
 *   <li>{@link #always()}: shown to everyone who can reach the probe port. Every pod in the
 *       cluster can; use it for development only.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe.
 */
public final class DetailsPolicy {
    private static final DetailsPolicy NEVER = new DetailsPolicy("never", null);
    private static final DetailsPolicy ALWAYS = new DetailsPolicy("always", null);

    private final String name;
    private final byte[] tokenDigest;

    private DetailsPolicy(String name, byte[] tokenDigest) {
        this.name = name;
        this.tokenDigest = tokenDigest;
    }

    /** @return the policy that never shows details, messages or error types (the default) */
    public static DetailsPolicy never() {
        return NEVER;
    }

    /** @return the policy that always shows details, messages and error types */
    public static DetailsPolicy always() {
        return ALWAYS;
    }

    /**
     * Details only for requests with {@code Authorization: Bearer <bearerToken>}.
     *
     * @param bearerToken the shared secret; at least 8 characters, no whitespace. Only its
     *     SHA-256 digest is kept.
     * @return the policy
     * @throws NullPointerException if {@code bearerToken} is null
     * @throws IllegalArgumentException if the token is shorter than 8 characters or contains
     *     whitespace or control characters
     */
    public static DetailsPolicy whenAuthorized(String bearerToken) {
        Objects.requireNonNull(bearerToken, "bearerToken");
        if (bearerToken.length() < 8) {
            throw new IllegalArgumentException("details bearer token must have at least 8 characters, had "
                    + bearerToken.length());
        }
        for (int i = 0; i < bearerToken.length(); i++) {
            char c = bearerToken.charAt(i);
            if (c <= ' ' || c == 0x7f) {
                throw new IllegalArgumentException("details bearer token must not contain whitespace or control characters"
                        + " (at index " + i + ")");
            }
        }
        return new DetailsPolicy("when-authorized", sha256(bearerToken));
    }

    /**
     * @return {@code never}, {@code when-authorized} or {@code always}
     */
    public String name() {
        return name;
    }

    /**
     * Whether a request with this {@code Authorization} header value may see details.
     *
     * @param authorization the request's {@code Authorization} header, if any
     * @return {@code true} for {@code always}; for {@code when-authorized}, whether the header is
     *     {@code Bearer <token>} (scheme case-insensitive) with the configured token, compared in
     *     constant time; {@code false} for {@code never}
     * @throws NullPointerException if {@code authorization} is null
     */
    public boolean allows(Optional<String> authorization) {
        Objects.requireNonNull(authorization, "authorization");
        return allows(authorization.orElse(null));
    }

    boolean allows(String authorization) {
        if (this == ALWAYS) {
            return true;
        }
        if (tokenDigest == null) {
            return false;
        }
        if (authorization == null || authorization.length() < 7
                || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        String presented = authorization.substring(7).trim();
        // Digests have a fixed length, so the comparison takes the same time whatever was presented.
        return MessageDigest.isEqual(tokenDigest, sha256(presented));
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    /** @return the policy's name; never the token */
    @Override
    public String toString() {
        return name;
    }
}
