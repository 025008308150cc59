package dev.vitals.examples.agent.grpc;

import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import java.net.InetSocketAddress;

/**
 * A plain grpc-java service whose only port speaks gRPC, with no Vitals code: Netty, and
 * grpc-services' {@code grpc.health.v1.Health} (SERVING once started) unless {@code --no-health}.
 * Run it with {@code java -javaagent:vitals-agent.jar -jar agent-grpc.jar --port 50051}.
 */
public final class AgentGrpcApp {
    private AgentGrpcApp() {
    }

    public static void main(String[] args) throws Exception {
        int port = 50051;
        boolean health = true;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--port") && i + 1 < args.length) {
                port = Integer.parseInt(args[++i]);
            } else if (args[i].equals("--no-health")) {
                health = false;
            } else {
                System.err.println("agent-grpc: unknown argument " + args[i] + " (usage: [--port N] [--no-health])");
                System.exit(2);
            }
        }
        NettyServerBuilder b = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port));
        HealthStatusManager manager = new HealthStatusManager();
        if (health) {
            b.addService(manager.getHealthService());
        }
        Server server = b.build().start();
        manager.setStatus("", ServingStatus.SERVING);
        System.out.println("agent-grpc: serving on port " + server.getPort() + (health ? " with" : " without") + " grpc.health.v1");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            manager.enterTerminalState();
            server.shutdown();
        }, "agent-grpc-stop"));
        server.awaitTermination();
    }
}
