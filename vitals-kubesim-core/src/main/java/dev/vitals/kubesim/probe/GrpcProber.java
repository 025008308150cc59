package dev.vitals.kubesim.probe;

import dev.vitals.kubesim.model.ProbeHandler;
import dev.vitals.kubesim.model.ProbeOutcome;
import dev.vitals.kubesim.model.ProbeResult;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC probe: {@code grpc.health.v1.Health/Check} over plaintext HTTP/2 to the pod IP on
 * the numeric port, with one deadline {@code T} covering the connection and the call (R64–R66;
 * kubelet: pkg/probe/grpc/grpc.go). SERVING is Success; every other status, RPC code or
 * connection problem is a counted Failure. Never returns an error. Thread-safe.
 */
final class GrpcProber {
    private GrpcProber() {
    }

    /**
     * @param podIp the address (the kubelet always dials the pod IP)
     * @param g the handler
     * @param timeoutSeconds T
     * @param userAgent {@code kube-probe/<major>.<minor>}
     * @return the outcome (latency is filled in by the caller)
     */
    public static ProbeOutcome check(String podIp, ProbeHandler.Grpc g, int timeoutSeconds, String userAgent) {
        ManagedChannel ch = Grpc.newChannelBuilderForAddress(podIp, g.port(), InsecureChannelCredentials.create())
                .userAgent(userAgent).build();
        try {
            HealthCheckResponse r = HealthGrpc.newBlockingStub(ch).withWaitForReady()
                    .withDeadlineAfter(timeoutSeconds, TimeUnit.SECONDS)
                    .check(HealthCheckRequest.newBuilder().setService(g.service()).build());
            if (r.getStatus() == HealthCheckResponse.ServingStatus.SERVING) {
                return ProbeOutcome.of(ProbeResult.SUCCESS, "service is SERVING", Duration.ZERO);
            }
            return ProbeOutcome.of(ProbeResult.FAILURE, "service unhealthy (responded with \"" + r.getStatus() + "\")",
                    Duration.ZERO);
        } catch (StatusRuntimeException e) {
            Status.Code code = e.getStatus().getCode();
            String what;
            if (code == Status.Code.DEADLINE_EXCEEDED) {
                what = "timeout: health rpc did not complete within " + timeoutSeconds + "s";
            } else if (code == Status.Code.UNIMPLEMENTED) {
                what = "error: this server does not implement the grpc health protocol (grpc.health.v1.Health): "
                        + e.getStatus().getDescription();
            } else {
                what = "health rpc failed: " + code + (e.getStatus().getDescription() == null ? ""
                        : ": " + e.getStatus().getDescription());
            }
            return ProbeOutcome.of(ProbeResult.FAILURE, what, Duration.ZERO);
        } catch (RuntimeException e) {
            return ProbeOutcome.of(ProbeResult.FAILURE, "grpc probe failed: " + e.getMessage(), Duration.ZERO);
        } finally {
            ch.shutdownNow();
        }
    }
}
