package dev.vitals.grpc;

import dev.vitals.grpc.proto.health.v1.HealthListRequest;
import dev.vitals.grpc.proto.health.v1.HealthListResponse;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A grpc-java client of {@code grpc.health.v1.Health/List} (gRFC A90) with protoc's messages of the
 * updated health.proto (src/test/proto). The method descriptor is the one protoc-gen-grpc-java
 * generates for a unary method; grpc-services 1.85's HealthGrpc has none.
 */
public final class ListClient {
    public static final MethodDescriptor<HealthListRequest, HealthListResponse> LIST =
            MethodDescriptor.<HealthListRequest, HealthListResponse>newBuilder()
                    .setType(MethodDescriptor.MethodType.UNARY)
                    .setFullMethodName(MethodDescriptor.generateFullMethodName("grpc.health.v1.Health", "List"))
                    .setRequestMarshaller(ProtoUtils.marshaller(HealthListRequest.getDefaultInstance()))
                    .setResponseMarshaller(ProtoUtils.marshaller(HealthListResponse.getDefaultInstance()))
                    .build();

    private ListClient() {
    }

    /**
     * @return service name to status name ({@code SERVING}...), sorted by name
     * @throws StatusRuntimeException when the call fails
     */
    public static Map<String, String> list(Channel ch) {
        HealthListResponse r = ClientCalls.blockingUnaryCall(ch, LIST,
                CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), HealthListRequest.getDefaultInstance());
        Map<String, String> m = new TreeMap<>();
        r.getStatusesMap().forEach((k, v) -> m.put(k, v.getStatus().name()));
        return m;
    }

    /** @return the statuses as {@link #list}, or the RPC error's code name as the only key */
    public static Object listOrCode(Channel ch) {
        try {
            return list(ch);
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode().name();
        }
    }
}
