package dev.vitals.kubesim.fleet;

import java.util.List;

/** The command line of a {@link SyntheticReplica}, for tests in other packages. */
public final class FleetTestServers {
    private FleetTestServers() {
    }

    /** @return the command of a test replica with these workers, service and start times */
    public static List<String> command(int workers, long serviceMs, long startMs) {
        return LiveFleetTest.replica(workers, serviceMs, startMs);
    }
}
