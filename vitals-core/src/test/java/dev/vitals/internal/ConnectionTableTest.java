package dev.vitals.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/**
 * The probe ports' connection policy (DESIGN.md 6b) alone, as the HTTP and gRPC servers use it:
 * who is closed to make room, per-address shares.
 */
class ConnectionTableTest {
    /** A connection whose busy mark the test sets. */
    static final class Conn implements ConnectionTable.Handle {
        volatile boolean busy;

        @Override
        public boolean busy() {
            return busy;
        }
    }

    private static ConnectionTable.Entry<Conn> entry(InetAddress peer) {
        return new ConnectionTable.Entry<>(new Conn(), peer);
    }

    @Test
    void atTheLimitTheLongestUnansweredConnectionGoesNeverTheNewest() throws Exception {
        ConnectionTable<Conn> t = new ConnectionTable<>(3, 3);
        InetAddress a = InetAddress.getByName("10.0.0.1");
        ConnectionTable.Entry<Conn> first = entry(a);
        ConnectionTable.Entry<Conn> second = entry(a);
        ConnectionTable.Entry<Conn> third = entry(a);
        assertThat(t.admit(first)).isEmpty();
        assertThat(t.admit(second)).isEmpty();
        assertThat(t.admit(third)).isEmpty();
        assertThat(t.answered(first)).isTrue(); // a kept-alive connection just answered becomes the youngest

        ConnectionTable.Entry<Conn> fourth = entry(a);
        assertThat(t.admit(fourth)).containsExactly(second);
        third.handle().busy = true; // its answer is being prepared: passed over
        assertThat(t.admit(entry(a))).containsExactly(first);
        assertThat(t.size()).isEqualTo(3);
        assertThat(t.evicted()).isEqualTo(2);
        assertThat(t.answered(second)).as("evicted: no longer in the table").isFalse();
    }

    @Test
    void whenEveryConnectionIsBusyTheOldestGoes() throws Exception {
        ConnectionTable<Conn> t = new ConnectionTable<>(2, 2);
        java.util.List<ConnectionTable.Entry<Conn>> open = new java.util.ArrayList<>();
        for (int i = 0; i < 2; i++) {
            open.add(entry(InetAddress.getByName("10.0.0.1")));
            t.admit(open.get(i));
            open.get(i).handle().busy = true;
        }
        assertThat(t.admit(entry(InetAddress.getByName("10.0.0.1")))).containsExactly(open.get(0));
    }

    @Test
    void anAddressAtItsShareMakesRoomAmongItsOwnConnections() throws Exception {
        ConnectionTable<Conn> t = new ConnectionTable<>(10, 2);
        InetAddress flooder = InetAddress.getByName("10.0.0.66");
        InetAddress scraper = InetAddress.getByName("10.0.0.7");
        ConnectionTable.Entry<Conn> kept = entry(scraper);
        t.admit(kept); // the oldest of all
        ConnectionTable.Entry<Conn> f1 = entry(flooder);
        ConnectionTable.Entry<Conn> f2 = entry(flooder);
        t.admit(f1);
        t.admit(f2);

        assertThat(t.admit(entry(flooder))).containsExactly(f1);
        assertThat(t.admit(entry(flooder))).containsExactly(f2);
        assertThat(t.size()).isEqualTo(3);
        assertThat(t.addresses()).isEqualTo(2);
        t.remove(kept);
        t.remove(kept); // twice: no effect
        assertThat(t.size()).isEqualTo(2);
        assertThat(t.addresses()).isEqualTo(1);
    }
}
