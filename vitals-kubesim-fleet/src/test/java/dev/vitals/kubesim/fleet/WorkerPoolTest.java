package dev.vitals.kubesim.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vitals.kubesim.fleet.WorkerPool.Server;
import dev.vitals.kubesim.model.VirtualTime;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** The model replica's server state as a state machine: the allowed moves, and a refused move named. */
class WorkerPoolTest {
    private static final FleetSpec SPEC = FleetSpecReader.parse(String.join("\n",
            "replicas: 2",
            "duration: 10s",
            "replica: {workers: 4, startTime: 1s}",
            "probes:",
            "  server: isolated",
            "  readiness: {periodSeconds: 1}",
            "clients:",
            "  - {name: users, rate: 10, serviceTime: {min: 10ms, max: 20ms}, timeout: 1s}",
            ""), "pool");

    private static WorkerPool pool() {
        ModelFleet fleet = new ModelFleet(SPEC, "pool");
        ModelReplica replica = new ModelReplica(fleet, SPEC, new VirtualTime(), 1, 0);
        return new WorkerPool(fleet, replica, SPEC.replica());
    }

    @Test
    void onlyTheTablesMovesAreAllowed() {
        assertThat(EnumSet.allOf(Server.class).stream().filter(Server.CLOSED::canMoveTo)).containsExactly(Server.OPEN);
        assertThat(EnumSet.allOf(Server.class).stream().filter(Server.OPEN::canMoveTo)).containsExactly(Server.CLOSED, Server.DRAINING);
        assertThat(EnumSet.allOf(Server.class).stream().filter(Server.DRAINING::canMoveTo)).containsExactly(Server.CLOSED);
    }

    @Test
    void aRefusedMoveThrowsNamingTheReplicaAndTheMove() {
        WorkerPool w = pool();
        assertThatThrownBy(() -> w.move(Server.DRAINING))
                .isInstanceOf(IllegalStateException.class).hasMessage("model replica 1: no server move CLOSED → DRAINING");
        w.move(Server.OPEN);
        assertThat(w.accepting()).isTrue();
        w.move(Server.DRAINING);
        assertThat(w.accepting()).isFalse();
        assertThatThrownBy(() -> w.move(Server.OPEN))
                .isInstanceOf(IllegalStateException.class).hasMessage("model replica 1: no server move DRAINING → OPEN");
        assertThat(w.server()).isEqualTo(Server.DRAINING);
    }

    @Test
    void closingAClosedServerKeepsItClosed() {
        WorkerPool w = pool();
        w.close(); // a process that exits while still starting: its server never opened
        assertThat(w.server()).isEqualTo(Server.CLOSED);
        w.move(Server.OPEN);
        w.close();
        assertThat(w.server()).isEqualTo(Server.CLOSED);
        assertThat(w.inSystem()).isZero();
    }
}
