package dev.vitals.examples.agent.helidon;

import dev.vitals.examples.agent.faults.Faults;
import io.helidon.health.HealthCheckResponse;
import io.helidon.health.HealthCheckType;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.observe.ObserveFeature;
import io.helidon.webserver.observe.health.HealthObserver;

/**
 * A plain Helidon SE 4 service with no Vitals code: every request on a virtual thread, the health
 * observer ({@code /observe/health/ready}, {@code /observe/health/started}) with a readiness check
 * ({@code gate}) the test routes can make slow or hung, and the dependency check ({@link Faults}).
 * Run it with {@code java -javaagent:vitals-agent.jar -jar agent-helidon.jar --port 8080} on Java 21+.
 */
public final class AgentHelidonApp {
    private AgentHelidonApp() {
    }

    public static void main(String[] args) {
        int port = 8080;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--port") && i + 1 < args.length) {
                port = Integer.parseInt(args[++i]);
            } else {
                System.err.println("agent-helidon: unknown argument " + args[i] + " (usage: [--port N])");
                System.exit(2);
            }
        }
        ObserveFeature observe = ObserveFeature.builder()
                .addObserver(HealthObserver.builder()
                        .useSystemServices(false)
                        .details(true)
                        .addCheck(AgentHelidonApp::gate, HealthCheckType.READINESS, "gate")
                        .build())
                .build();
        WebServer server = WebServer.builder()
                .host("127.0.0.1")
                .port(port)
                .addFeature(observe)
                .routing(AgentHelidonApp::routing)
                .build()
                .start();
        System.out.println("agent-helidon: serving on port " + server.port());
    }

    private static HealthCheckResponse gate() {
        Faults.gateUninterruptibly();
        try {
            Faults.checkDependency();
        } catch (java.io.IOException e) {
            return HealthCheckResponse.builder().status(false).detail("dependency", e.toString()).build();
        }
        return HealthCheckResponse.builder().status(true).build();
    }

    static void routing(HttpRouting.Builder r) {
        r.get("/test/hello", (req, res) -> res.send(Faults.hello()))
                .get("/test/readiness/{m}", (req, res) -> res.send(Faults.readiness(req.path().pathParameters().get("m"))))
                .get("/test/block", (req, res) -> res.send(Faults.block()))
                .get("/test/work", (req, res) -> res.send(Faults.work(Long.parseLong(req.query().get("ms")))))
                .get("/test/dependency", (req, res) -> res.send(Faults.dependency()))
                .get("/test/deadlock", (req, res) -> res.send(Faults.deadlock()));
    }
}
