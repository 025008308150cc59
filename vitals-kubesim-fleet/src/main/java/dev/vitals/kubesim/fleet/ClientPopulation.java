package dev.vitals.kubesim.fleet;

import java.util.Arrays;

/**
 * One population of clients in the model engine ({@link FleetSpec.Clients}) with its figures in
 * steps and seconds and its mutable connection state: kept connections per replica (open loop),
 * HTTP/2 connections' pods (closed loop), first attempts sent (a batch job). Engine thread only.
 */
final class ClientPopulation {
    final int index;
    final FleetSpec.Clients c;
    final double serviceLow;
    final double serviceHigh;
    final long timeoutSteps;
    final double timeoutSeconds;
    final long thinkSteps;
    final long retrySteps;
    final double from;
    final double until;
    final int[] conn; // open loop with kept connections: connections per replica
    int unpinned;
    long sent; // closed loop with a total: first attempts sent so far
    final boolean background; // the pods' own traffic: not routed, not counted, not retried
    final int[] h2Pod; // HTTP/2 through kube-proxy: each kept connection's pod (-1: none yet), and its process
    final int[] h2Epoch;
    int h2Next;
    final Draws.PoissonTable arrivals = new Draws.PoissonTable();
    /** Whether a request that finds a free worker is answered within its step (the engine's fast path). */
    final boolean answeredInStep;

    /**
     * @param index the population's place in the spec (−1: the pods' own traffic)
     * @param c the clients
     * @param replicas the engine's pods (connections are counted per pod)
     * @param stepNs the engine's step
     * @param answeredInStep whether a request that finds a free worker is answered within its step
     */
    ClientPopulation(int index, FleetSpec.Clients c, int replicas, long stepNs, boolean answeredInStep) {
        this.answeredInStep = answeredInStep;
        this.conn = c.connections() > 0 && !c.policy().http2() ? new int[replicas] : null;
        this.h2Pod = c.policy().http2() ? new int[Math.max(1, c.connections())] : null;
        this.h2Epoch = h2Pod == null ? null : new int[h2Pod.length];
        if (h2Pod != null) {
            Arrays.fill(h2Pod, -1);
        }
        this.unpinned = conn == null ? 0 : c.connections();
        this.index = index;
        this.background = index < 0;
        this.c = c;
        this.serviceLow = c.serviceMin().toNanos() / 1e9;
        this.serviceHigh = c.serviceMax().toNanos() / 1e9;
        this.timeoutSteps = Math.max(1, Math.round(c.timeout().toNanos() / (double) stepNs));
        this.timeoutSeconds = c.timeout().toNanos() / 1e9;
        this.thinkSteps = Math.round(c.thinkTime().toNanos() / (double) stepNs);
        this.retrySteps = Math.round(c.retryDelay().toNanos() / (double) stepNs);
        this.from = c.from().toNanos() / 1e9;
        this.until = c.until().toNanos() / 1e9;
    }

    /** @return the key of a new connection: {@link Balancer#NO_KEY}, or one of the population's keys */
    int key(Draws draws) {
        int k = c.policy().keys();
        return k == 0 ? Balancer.NO_KEY : k == 1 ? 0 : draws.below(k);
    }
}
