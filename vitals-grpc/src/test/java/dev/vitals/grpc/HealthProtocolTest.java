package dev.vitals.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import dev.vitals.grpc.HealthProtocol.ServingStatus;
import dev.vitals.grpc.proto.health.v1.HealthListRequest;
import dev.vitals.grpc.proto.health.v1.HealthListResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The hand-written codec against protoc's generated classes (grpc-services), byte for byte. */
class HealthProtocolTest {

    @Test
    void requestsDecodeAsTheGeneratedClassesEncodeThem() throws Exception {
        for (String s : new String[] {"", "liveness", "shop.v1.Orders", "ü-ß-€-😀", "x".repeat(300)}) {
            byte[] generated = HealthCheckRequest.newBuilder().setService(s).build().toByteArray();
            assertThat(HealthProtocol.decodeRequest(generated)).isEqualTo(s);
            assertThat(HealthProtocol.encodeRequest(s)).isEqualTo(generated);
            InputStream in = HealthProtocol.CHECK.streamRequest(s);
            assertThat(HealthCheckRequest.parseFrom(in).getService()).isEqualTo(s);
            assertThat(HealthProtocol.CHECK.parseRequest(HealthProtocol.CHECK.streamRequest(s))).as("known length").isEqualTo(s);
            assertThat(HealthProtocol.CHECK.parseRequest(new ByteArrayInputStream(generated))).isEqualTo(s);
        }
    }

    @Test
    void responsesEncodeAsTheGeneratedClassesDo() throws Exception {
        for (ServingStatus s : ServingStatus.values()) {
            byte[] generated = HealthCheckResponse.newBuilder()
                    .setStatus(HealthCheckResponse.ServingStatus.forNumber(s.ordinal())).build().toByteArray();
            assertThat(HealthProtocol.encodeResponse(s)).as(s.name()).isEqualTo(generated);
            ByteArrayOutputStream drained = new ByteArrayOutputStream();
            ((io.grpc.Drainable) HealthProtocol.CHECK.streamResponse(s)).drainTo(drained);
            assertThat(drained.toByteArray()).isEqualTo(generated);
            assertThat(HealthProtocol.CHECK.parseResponse(new ByteArrayInputStream(generated))).isEqualTo(s);
        }
    }

    @Test
    void listResponsesRoundTripWithTheUpdatedProtosClasses() throws Exception {
        Map<String, ServingStatus> statuses = new LinkedHashMap<>();
        statuses.put("", ServingStatus.SERVING);
        statuses.put("readiness", ServingStatus.NOT_SERVING);
        statuses.put("ü-ß-€-😀", ServingStatus.SERVING);
        statuses.put("x".repeat(300), ServingStatus.NOT_SERVING);
        statuses.put("unknown", ServingStatus.UNKNOWN);
        byte[] ours = HealthProtocol.encodeListResponse(statuses);
        HealthListResponse parsed = HealthListResponse.parseFrom(ours);
        assertThat(parsed.getStatusesMap()).hasSize(statuses.size());
        statuses.forEach((k, v) -> assertThat(parsed.getStatusesMap().get(k).getStatusValue()).as(k).isEqualTo(v.ordinal()));

        HealthListResponse.Builder generated = HealthListResponse.newBuilder();
        statuses.forEach((k, v) -> generated.putStatuses(k, dev.vitals.grpc.proto.health.v1.HealthCheckResponse.newBuilder()
                .setStatusValue(v.ordinal()).build()));
        assertThat(HealthProtocol.decodeListResponse(generated.build().toByteArray())).isEqualTo(statuses);
        assertThat(HealthProtocol.LIST.parseResponse(HealthProtocol.LIST.streamResponse(statuses))).isEqualTo(statuses);
        assertThat(HealthProtocol.encodeListResponse(Map.of())).isEmpty();
    }

    @Test
    void listRequestsSkipUnknownFieldsAndRefuseMalformedOnes() {
        assertThat(HealthProtocol.LIST.parseRequest(new ByteArrayInputStream(HealthListRequest.getDefaultInstance().toByteArray())))
                .isEmpty();
        byte[] withService = HealthProtocol.encodeRequest("readiness"); // field 1 is unknown to HealthListRequest
        assertThat(HealthProtocol.LIST.parseRequest(new ByteArrayInputStream(withService))).isEmpty();
        byte[] notUtf8 = {0x0A, 0x01, (byte) 0xFF};
        assertThat(HealthProtocol.LIST.parseRequest(new ByteArrayInputStream(notUtf8))).as("an unknown field is not decoded").isEmpty();
        for (byte[] bad : new byte[][] {{0x0A, 0x05, 'a'}, {0x08}, {0x07}, {0x00, 0x00}}) {
            assertThat(HealthProtocol.LIST.parseRequest(new ByteArrayInputStream(bad))).isSameAs(HealthProtocol.MALFORMED);
        }
        assertThatThrownBy(() -> HealthProtocol.decodeListResponse(new byte[] {0x0A, 0x03, 0x12, 0x05, 0x08}))
                .isInstanceOf(StatusRuntimeException.class);
    }

    @Test
    void unknownFieldsAreSkippedAndTheLastServiceWins() {
        HealthCheckRequest withExtras = HealthCheckRequest.newBuilder().setService("readiness")
                .setUnknownFields(UnknownFieldSet.newBuilder()
                        .addField(2, UnknownFieldSet.Field.newBuilder().addVarint(300).build())
                        .addField(3, UnknownFieldSet.Field.newBuilder().addFixed64(7).build())
                        .addField(4, UnknownFieldSet.Field.newBuilder().addFixed32(9).build())
                        .addField(5, UnknownFieldSet.Field.newBuilder().addLengthDelimited(ByteString.copyFromUtf8("zz")).build())
                        .build())
                .build();
        assertThat(HealthProtocol.decodeRequest(withExtras.toByteArray())).isEqualTo("readiness");
        byte[] twice = concat(HealthProtocol.encodeRequest("liveness"), HealthProtocol.encodeRequest("startup"));
        assertThat(HealthProtocol.decodeRequest(twice)).isEqualTo("startup");
    }

    @Test
    void malformedRequestsAreInvalidArgument() {
        byte[][] bad = {
            {0x0A, 0x05, 'a', 'b'},                     // length beyond the message
            {0x0A},                                      // tag, no length
            {(byte) 0x80},                               // truncated varint
            {0x0B},                                      // start group (wire type 3)
            {0x02, 0x00},                                // field number 0
            {0x0A, 0x02, (byte) 0xC3, 0x28},            // invalid UTF-8
            {0x08, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF,
                (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x01}, // 11-byte varint
        };
        for (byte[] b : bad) {
            assertThatThrownBy(() -> HealthProtocol.decodeRequest(b))
                    .isInstanceOf(StatusRuntimeException.class)
                    .satisfies(e -> assertThat(((StatusRuntimeException) e).getStatus().getCode())
                            .isEqualTo(Status.Code.INVALID_ARGUMENT))
                    .hasMessageContaining("malformed grpc.health.v1.HealthCheckRequest");
        }
    }

    @Test
    void methodNamesAreThoseOfHealthProto() {
        assertThat(HealthProtocol.CHECK.getFullMethodName())
                .isEqualTo(io.grpc.health.v1.HealthGrpc.getCheckMethod().getFullMethodName());
        assertThat(HealthProtocol.WATCH.getFullMethodName())
                .isEqualTo(io.grpc.health.v1.HealthGrpc.getWatchMethod().getFullMethodName());
        assertThat(HealthProtocol.WATCH.getType()).isEqualTo(io.grpc.health.v1.HealthGrpc.getWatchMethod().getType());
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
