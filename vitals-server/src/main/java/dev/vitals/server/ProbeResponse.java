package dev.vitals.server;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

/**
 * One answer of the probe contract, independent of any server: status, content type, body and
 * the optional {@code Allow} header. Every response also carries {@code Cache-Control: no-store}
 * and {@code X-Content-Type-Options: nosniff}.
 *
 * <p>The status line and headers (without {@code Connection} and the blank line) are encoded
 * once, at construction, so a cached response costs no encoding per request. Immutable; the
 * arrays are never handed out for writing.
 */
final class ProbeResponse {
    static final String TEXT = "text/plain; charset=utf-8";
    static final String JSON = "application/json";

    private final int status;
    private final String contentType;
    private final byte[] body;
    private final String allow;
    private final byte[] head;

    ProbeResponse(int status, String contentType, byte[] body, String allow) {
        this.status = status;
        this.contentType = Objects.requireNonNull(contentType, "contentType");
        this.body = Objects.requireNonNull(body, "body");
        this.allow = allow;
        this.head = encodeHead();
    }

    static ProbeResponse text(int status, String body) {
        return new ProbeResponse(status, TEXT, body.getBytes(StandardCharsets.UTF_8), null);
    }

    int status() {
        return status;
    }

    String contentType() {
        return contentType;
    }

    /** @return the body bytes; callers must not modify them */
    byte[] body() {
        return body;
    }

    String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    Optional<String> allow() {
        return Optional.ofNullable(allow);
    }

    /**
     * @return {@code HTTP/1.1 <status> <reason>} and every header line, each ending in CRLF,
     *     without a {@code Connection} header and without the final blank line; callers must not
     *     modify it
     */
    byte[] head() {
        return head;
    }

    private byte[] encodeHead() {
        StringBuilder sb = new StringBuilder(192)
                .append("HTTP/1.1 ").append(status).append(' ').append(reasonPhrase(status)).append("\r\n")
                .append("Content-Type: ").append(contentType).append("\r\n")
                .append("Content-Length: ").append(body.length).append("\r\n")
                .append("Cache-Control: no-store\r\n")
                .append("X-Content-Type-Options: nosniff\r\n");
        if (allow != null) {
            sb.append("Allow: ").append(allow).append("\r\n");
        }
        return sb.toString().getBytes(StandardCharsets.US_ASCII);
    }

    static String reasonPhrase(int status) {
        switch (status) {
            case 200: return "OK";
            case 400: return "Bad Request";
            case 404: return "Not Found";
            case 405: return "Method Not Allowed";
            case 431: return "Request Header Fields Too Large";
            case 500: return "Internal Server Error";
            case 503: return "Service Unavailable";
            default: return "Status " + status;
        }
    }

    @Override
    public String toString() {
        return status + " " + contentType + " " + bodyText();
    }
}
