package dev.vitals.kubesim.fleet;

/**
 * Requests of one population and attempt that reached one replica in one step of the model engine.
 * {@code n} counts those not yet answered (waiting or in service), {@code waiting} those without a
 * worker; service times are seconds, already times the warm-up factor. Mutable; engine thread only.
 */
final class Cohort {
    final ClientPopulation pop;
    final int attempt;
    final double arrival;
    final double serviceLow;
    final double serviceHigh;
    final boolean error;
    final int replica;
    int n;
    int waiting;
    boolean abandoned;

    Cohort(ClientPopulation pop, int replica, int attempt, double arrival, double serviceLow, double serviceHigh, boolean error,
            int n) {
        this.pop = pop;
        this.replica = replica;
        this.attempt = attempt;
        this.arrival = arrival;
        this.serviceLow = serviceLow;
        this.serviceHigh = serviceHigh;
        this.error = error;
        this.n = n;
        this.waiting = n;
    }

    double meanService() {
        return (serviceLow + serviceHigh) / 2;
    }
}
