package dev.vitals.examples.agent.faults;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

/**
 * The test routes as a Jakarta REST resource, each a call into {@link Faults}: registered by the
 * Dropwizard example (Jersey, on its {@code dw-N} pool) and found by the Quarkus example (Quarkus
 * REST; blocking methods run on its worker pool, {@code executor-thread-N}).
 */
@Path("/test")
@Produces(MediaType.TEXT_PLAIN)
public class JaxRsTestRoutes {
    @GET
    @Path("/hello")
    public String hello() {
        return Faults.hello();
    }

    @GET
    @Path("/readiness/{m}")
    public String readiness(@PathParam("m") String m) {
        return Faults.readiness(m);
    }

    @GET
    @Path("/block")
    public String block() throws InterruptedException {
        return Faults.block();
    }

    @GET
    @Path("/work")
    public String work(@QueryParam("ms") long ms) throws InterruptedException {
        return Faults.work(ms);
    }

    @GET
    @Path("/dependency")
    public String dependency() throws java.io.IOException {
        return Faults.dependency();
    }

    @GET
    @Path("/deadlock")
    public String deadlock() {
        return Faults.deadlock();
    }
}
