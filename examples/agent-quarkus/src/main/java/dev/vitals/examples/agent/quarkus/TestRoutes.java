package dev.vitals.examples.agent.quarkus;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Test routes of a plain Quarkus service with no Vitals code (blocking methods: they run on
 * Quarkus' worker pool, {@code executor-thread-N}). Run it with
 * {@code java -javaagent:vitals-agent.jar -jar target/quarkus-app/quarkus-run.jar}.
 */
@Path("/test")
@Produces(MediaType.TEXT_PLAIN)
public class TestRoutes {
    static volatile String mode = "ok";
    static final CountDownLatch NEVER = new CountDownLatch(1);

    @GET
    @Path("/hello")
    public String hello() {
        return "hello\n";
    }

    @GET
    @Path("/readiness/{m}")
    public String readiness(@PathParam("m") String m) {
        mode = m;
        return "readiness check: " + m + "\n";
    }

    @GET
    @Path("/block")
    public String block() throws InterruptedException {
        NEVER.await();
        return "never\n";
    }

    @GET
    @Path("/deadlock")
    public String deadlock() {
        ReentrantLock a = new ReentrantLock();
        ReentrantLock b = new ReentrantLock();
        CountDownLatch both = new CountDownLatch(2);
        new Thread(() -> lock(a, b, both), "app-deadlock-1").start();
        new Thread(() -> lock(b, a, both), "app-deadlock-2").start();
        return "deadlocked\n";
    }

    private static void lock(ReentrantLock first, ReentrantLock second, CountDownLatch both) {
        first.lock();
        both.countDown();
        try {
            both.await();
        } catch (InterruptedException e) {
            return;
        }
        second.lock();
    }
}
