package dev.vitals.grpc;

import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The wire side of {@code grpc.health.v1.Health} (grpc/health/v1/health.proto, with {@code List}
 * of gRFC A90): the three method descriptors and a hand-written protobuf codec for its messages.
 *
 * <pre>
 * message HealthCheckRequest  { string service = 1; }
 * message HealthCheckResponse { ServingStatus status = 1; }   // UNKNOWN 0, SERVING 1, NOT_SERVING 2, SERVICE_UNKNOWN 3
 * message HealthListRequest   { }
 * message HealthListResponse  { map&lt;string, HealthCheckResponse&gt; statuses = 1; }
 * service Health {
 *   rpc Check(HealthCheckRequest) returns (HealthCheckResponse);
 *   rpc List(HealthListRequest) returns (HealthListResponse);
 *   rpc Watch(HealthCheckRequest) returns (stream HealthCheckResponse);
 * }
 * </pre>
 *
 * <p>A map entry is encoded as protobuf does it: field 1 holds a message {@code {string key = 1;
 * HealthCheckResponse value = 2;}}.
 *
 * <p>Decoding follows proto3: fields other than {@code service} are skipped by wire type, a
 * repeated {@code service} keeps the last value, the string must be valid UTF-8, and anything
 * truncated or malformed is {@code INVALID_ARGUMENT}. Responses are pre-encoded byte arrays
 * (proto3 leaves out the default {@code UNKNOWN}). Compatibility with protoc's generated classes
 * is tested byte for byte ({@code HealthProtocolTest}). Stateless and thread-safe.
 */
final class HealthProtocol {
    static final String SERVICE_NAME = "grpc.health.v1.Health";

    /** The serving statuses of health.proto, by their numbers. */
    enum ServingStatus {
        UNKNOWN, SERVING, NOT_SERVING, SERVICE_UNKNOWN;

        private final byte[] encoded = ordinal() == 0 ? new byte[0] : new byte[] {0x08, (byte) ordinal()};
    }

    static final MethodDescriptor<String, ServingStatus> CHECK = MethodDescriptor.<String, ServingStatus>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE_NAME, "Check"))
            .setRequestMarshaller(RequestMarshaller.INSTANCE)
            .setResponseMarshaller(ResponseMarshaller.INSTANCE)
            .setIdempotent(true)
            .setSafe(true)
            .build();

    static final MethodDescriptor<String, ServingStatus> WATCH = MethodDescriptor.<String, ServingStatus>newBuilder()
            .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
            .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE_NAME, "Watch"))
            .setRequestMarshaller(RequestMarshaller.INSTANCE)
            .setResponseMarshaller(ResponseMarshaller.INSTANCE)
            .build();

    /**
     * {@code List} (gRFC A90). The request marshaller hands over {@code ""} for a well-formed
     * HealthListRequest (it has no fields; unknown ones are skipped) and {@link #MALFORMED} otherwise.
     */
    static final MethodDescriptor<String, Map<String, ServingStatus>> LIST =
            MethodDescriptor.<String, Map<String, ServingStatus>>newBuilder()
                    .setType(MethodDescriptor.MethodType.UNARY)
                    .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE_NAME, "List"))
                    .setRequestMarshaller(ListRequestMarshaller.INSTANCE)
                    .setResponseMarshaller(ListResponseMarshaller.INSTANCE)
                    .setIdempotent(true)
                    .setSafe(true)
                    .build();

    /**
     * What the request marshaller hands over for a message that is not a HealthCheckRequest;
     * compared by identity (a client cannot send this instance).
     */
    @SuppressWarnings("StringOperationCanBeSimplified")
    static final String MALFORMED = new String("malformed grpc.health.v1.HealthCheckRequest");

    private HealthProtocol() {
    }

    /** Encodes a request (for tests and clients). */
    static byte[] encodeRequest(String service) {
        byte[] s = service.getBytes(StandardCharsets.UTF_8);
        if (s.length == 0) {
            return s;
        }
        byte[] out = new byte[1 + varintSize(s.length) + s.length];
        out[0] = 0x0A;
        int i = writeVarint(out, 1, s.length);
        System.arraycopy(s, 0, out, i, s.length);
        return out;
    }

    /**
     * @param b an encoded HealthCheckRequest
     * @return its service name ("" when absent)
     * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT when malformed
     */
    static String decodeRequest(byte[] b) {
        return decodeFields(b, true);
    }

    /**
     * @param b an encoded HealthListRequest (no fields)
     * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT when malformed
     */
    static void decodeListRequest(byte[] b) {
        decodeFields(b, false);
    }

    private static String decodeFields(byte[] b, boolean hasService) {
        String service = "";
        int[] pos = {0};
        while (pos[0] < b.length) {
            long tag = readVarint(b, pos);
            int field = (int) (tag >>> 3);
            int wireType = (int) (tag & 7);
            if (field == 0) {
                throw malformed("field number 0");
            }
            switch (wireType) {
                case 0:
                    readVarint(b, pos);
                    break;
                case 1:
                    skip(b, pos, 8);
                    break;
                case 2: {
                    long len = readVarint(b, pos);
                    if (len < 0 || len > b.length - pos[0]) {
                        throw malformed("truncated field " + field);
                    }
                    if (hasService && field == 1) {
                        service = utf8(b, pos[0], (int) len);
                    }
                    pos[0] += (int) len;
                    break;
                }
                case 5:
                    skip(b, pos, 4);
                    break;
                default:
                    throw malformed("wire type " + wireType);
            }
        }
        return service;
    }

    /**
     * @param b an encoded HealthCheckResponse
     * @return its status; numbers this enum does not know read as UNKNOWN
     */
    static ServingStatus decodeResponse(byte[] b) {
        ServingStatus status = ServingStatus.UNKNOWN;
        int[] pos = {0};
        while (pos[0] < b.length) {
            long tag = readVarint(b, pos);
            int wireType = (int) (tag & 7);
            if (tag >>> 3 == 1 && wireType == 0) {
                long n = readVarint(b, pos);
                status = n >= 0 && n < ServingStatus.values().length ? ServingStatus.values()[(int) n] : ServingStatus.UNKNOWN;
            } else if (wireType == 0) {
                readVarint(b, pos);
            } else if (wireType == 2) {
                long len = readVarint(b, pos);
                skip(b, pos, (int) Math.min(len, Integer.MAX_VALUE));
            } else if (wireType == 1) {
                skip(b, pos, 8);
            } else if (wireType == 5) {
                skip(b, pos, 4);
            } else {
                throw malformed("wire type " + wireType);
            }
        }
        return status;
    }

    static byte[] encodeResponse(ServingStatus s) {
        return s.encoded.clone();
    }

    /**
     * @param statuses service name to status, in the order to write (any order is valid)
     * @return an encoded HealthListResponse
     */
    static byte[] encodeListResponse(Map<String, ServingStatus> statuses) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(16 * statuses.size() + 8);
        for (Map.Entry<String, ServingStatus> e : statuses.entrySet()) {
            byte[] key = e.getKey().getBytes(StandardCharsets.UTF_8);
            byte[] value = e.getValue().encoded;
            // entry = key (1, string) + value (2, HealthCheckResponse); protobuf-java writes both always
            int entryLen = 1 + varintSize(key.length) + key.length + 1 + varintSize(value.length) + value.length;
            out.write(0x0A);
            writeVarint(out, entryLen);
            out.write(0x0A);
            writeVarint(out, key.length);
            out.writeBytes(key);
            out.write(0x12);
            writeVarint(out, value.length);
            out.writeBytes(value);
        }
        return out.toByteArray();
    }

    /**
     * @param b an encoded HealthListResponse
     * @return its statuses in wire order (a repeated key keeps the last value, as protobuf's maps)
     * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT when malformed
     */
    static Map<String, ServingStatus> decodeListResponse(byte[] b) {
        Map<String, ServingStatus> statuses = new LinkedHashMap<>();
        int[] pos = {0};
        while (pos[0] < b.length) {
            long tag = readVarint(b, pos);
            int wireType = (int) (tag & 7);
            if (wireType != 2) {
                skipField(b, pos, wireType);
                continue;
            }
            int len = length(b, pos);
            if (tag >>> 3 != 1) {
                pos[0] += len;
                continue;
            }
            int end = pos[0] + len;
            String key = "";
            ServingStatus value = ServingStatus.UNKNOWN;
            while (pos[0] < end) {
                long t = readVarint(b, pos);
                int wt = (int) (t & 7);
                if (wt != 2) {
                    skipField(b, pos, wt);
                    continue;
                }
                int n = length(b, pos);
                if (t >>> 3 == 1) {
                    key = utf8(b, pos[0], n);
                } else if (t >>> 3 == 2) {
                    value = decodeResponse(Arrays.copyOfRange(b, pos[0], pos[0] + n));
                }
                pos[0] += n;
            }
            if (pos[0] != end) {
                throw malformed("map entry overruns its length");
            }
            statuses.put(key, value);
        }
        return statuses;
    }

    private static int length(byte[] b, int[] pos) {
        long len = readVarint(b, pos);
        if (len < 0 || len > b.length - pos[0]) {
            throw malformed("truncated field");
        }
        return (int) len;
    }

    private static void skipField(byte[] b, int[] pos, int wireType) {
        switch (wireType) {
            case 0 -> readVarint(b, pos);
            case 1 -> skip(b, pos, 8);
            case 2 -> pos[0] += length(b, pos);
            case 5 -> skip(b, pos, 4);
            default -> throw malformed("wire type " + wireType);
        }
    }

    private static void writeVarint(ByteArrayOutputStream out, int v) {
        while ((v & ~0x7F) != 0) {
            out.write((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.write(v);
    }

    private static String utf8(byte[] b, int off, int len) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(b, off, len)).toString();
        } catch (CharacterCodingException e) {
            throw malformed("service is not valid UTF-8");
        }
    }

    private static long readVarint(byte[] b, int[] pos) {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos[0] >= b.length) {
                throw malformed("truncated varint");
            }
            byte x = b[pos[0]++];
            v |= (long) (x & 0x7F) << shift;
            if ((x & 0x80) == 0) {
                return v;
            }
        }
        throw malformed("varint longer than 10 bytes");
    }

    private static void skip(byte[] b, int[] pos, int n) {
        if (n < 0 || n > b.length - pos[0]) {
            throw malformed("truncated field");
        }
        pos[0] += n;
    }

    private static int varintSize(int v) {
        int n = 1;
        while ((v & ~0x7F) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }

    private static int writeVarint(byte[] out, int i, int v) {
        while ((v & ~0x7F) != 0) {
            out[i++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out[i++] = (byte) v;
        return i;
    }

    private static RuntimeException malformed(String what) {
        return Status.INVALID_ARGUMENT.withDescription("malformed grpc.health.v1.HealthCheckRequest: " + what)
                .asRuntimeException();
    }

    private static final byte[] EMPTY = new byte[0];

    /**
     * Reads a whole message. grpc-java hands over a {@link KnownLength} stream, read into an array
     * of exactly its size ({@link InputStream#readAllBytes()} would allocate 8–16 KiB per call).
     */
    private static byte[] readAll(InputStream in) {
        try {
            if (in instanceof KnownLength) {
                int n = in.available();
                if (n == 0) {
                    return EMPTY;
                }
                byte[] b = new byte[n];
                int read = in.readNBytes(b, 0, n);
                if (read == n && in.read() == -1) {
                    return b;
                }
                throw Status.INTERNAL.withDescription("message shorter or longer than announced").asRuntimeException();
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw Status.INTERNAL.withDescription("cannot read message").withCause(e).asRuntimeException();
        }
    }

    private enum RequestMarshaller implements MethodDescriptor.Marshaller<String> {
        INSTANCE;

        @Override
        public InputStream stream(String service) {
            return new Encoded(encodeRequest(service));
        }

        /**
         * Never throws for a malformed message: grpc-java turns an exception here into UNKNOWN
         * "Application error processing RPC" and a SEVERE record with a stack trace per request.
         * The service answers {@link #MALFORMED} with INVALID_ARGUMENT instead.
         */
        @Override
        public String parse(InputStream in) {
            byte[] b = readAll(in);
            try {
                return decodeRequest(b);
            } catch (StatusRuntimeException e) {
                return MALFORMED;
            }
        }
    }

    private enum ListRequestMarshaller implements MethodDescriptor.Marshaller<String> {
        INSTANCE;

        @Override
        public InputStream stream(String ignored) {
            return new Encoded(EMPTY);
        }

        /** Never throws, as {@link RequestMarshaller#parse}. */
        @Override
        public String parse(InputStream in) {
            byte[] b = readAll(in);
            try {
                decodeListRequest(b);
                return "";
            } catch (StatusRuntimeException e) {
                return MALFORMED;
            }
        }
    }

    private enum ListResponseMarshaller implements MethodDescriptor.Marshaller<Map<String, ServingStatus>> {
        INSTANCE;

        @Override
        public InputStream stream(Map<String, ServingStatus> statuses) {
            return new Encoded(encodeListResponse(statuses));
        }

        @Override
        public Map<String, ServingStatus> parse(InputStream in) {
            return decodeListResponse(readAll(in));
        }
    }

    private enum ResponseMarshaller implements MethodDescriptor.Marshaller<ServingStatus> {
        INSTANCE;

        @Override
        public InputStream stream(ServingStatus status) {
            return new Encoded(status.encoded);
        }

        @Override
        public ServingStatus parse(InputStream in) {
            return decodeResponse(readAll(in));
        }
    }

    /** A message of known length that grpc-java copies straight into its frame. */
    private static final class Encoded extends ByteArrayInputStream implements KnownLength, Drainable {
        Encoded(byte[] b) {
            super(b);
        }

        @Override
        public int drainTo(OutputStream target) throws IOException {
            int n = count - pos;
            target.write(buf, pos, n);
            pos = count;
            return n;
        }
    }
}
