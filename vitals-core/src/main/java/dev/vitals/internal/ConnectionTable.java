package dev.vitals.internal;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The connection policy of Vitals' probe ports (DESIGN.md 6b), one for the HTTP probe server
 * (vitals-server) and the gRPC health server (vitals-grpc): which connections are open, from
 * which peer address, and which to close to make room. At the limit the newest connection is
 * never refused (a kubelet probe is always a new connection); the connection that has gone
 * longest without being answered is closed: one that sent nothing, part of a request, or sits
 * idle between requests. A connection being answered ({@link Handle#busy()}: an on-demand answer
 * prepared, a gRPC call open) is passed over while any other can go. A peer address holding its
 * share of the limit makes room among its own connections, so one source can neither take the
 * whole limit nor push out other sources.
 *
 * <p>Order: each connection is kept in two lists, all connections and its peer's, ordered by the
 * time it was opened or last answered (an answer moves it to the end). Thread-safe: every method
 * holds the table's lock for a few pointer moves (and, when evicting, a walk past connections
 * being answered). Not API: this package is exported to vitals-server and vitals-grpc only.
 *
 * @param <H> the transport's connection
 */
public final class ConnectionTable<H extends ConnectionTable.Handle> {
    /** A transport's connection, as the table sees it. */
    public interface Handle {
        /**
         * @return whether an answer is being prepared on it (read under the table's lock, from any
         *     thread: must be thread-safe and must not take the table's lock)
         */
        boolean busy();
    }

    /**
     * One open connection.
     *
     * @param <H> the transport's connection
     */
    public static final class Entry<H extends Handle> {
        private final H handle;
        private final InetAddress peer;
        private Entry<H> prev;
        private Entry<H> next;
        private Entry<H> peerPrev;
        private Entry<H> peerNext;
        private Peer<H> owner;
        private boolean linked;

        /**
         * @param handle the connection
         * @param peer its peer address, or null if unknown (all unknown peers share one share)
         */
        public Entry(H handle, InetAddress peer) {
            this.handle = handle;
            this.peer = peer;
        }

        /** @return the connection */
        public H handle() {
            return handle;
        }

        /** @return the peer address, or null */
        public InetAddress peer() {
            return peer;
        }
    }

    private static final class Peer<H extends Handle> {
        Entry<H> head;
        Entry<H> tail;
        int count;
    }

    private final int max;
    private final int perAddress;
    private final Map<InetAddress, Peer<H>> peers = new HashMap<>();
    private Entry<H> head;
    private Entry<H> tail;
    private int size;
    private long evicted;

    /**
     * @param max connections open at once, at least 1
     * @param perAddress connections per peer address, 1 to {@code max}
     */
    public ConnectionTable(int max, int perAddress) {
        this.max = max;
        this.perAddress = perAddress;
    }

    /**
     * Admits a new connection, choosing the connections to close to make room (at most one in
     * practice). The caller closes them, outside the lock.
     *
     * @param e the new connection
     * @return the connections evicted, unlinked already; empty when there was room
     */
    public synchronized List<Entry<H>> admit(Entry<H> e) {
        List<Entry<H>> victims = List.of();
        Peer<H> p = peers.get(e.peer);
        if (p != null && p.count >= perAddress) {
            victims = new ArrayList<>(1);
            Entry<H> v = oldest(p.head, true);
            unlink(v);
            victims.add(v);
        }
        while (size >= max) {
            if (victims.isEmpty()) {
                victims = new ArrayList<>(1);
            }
            Entry<H> v = oldest(head, false);
            unlink(v);
            victims.add(v);
        }
        evicted += victims.size();
        link(e, peers.computeIfAbsent(e.peer, k -> new Peer<>()));
        return victims;
    }

    /**
     * Removes a closed connection; does nothing if it was evicted or removed before.
     *
     * @param e the connection
     */
    public synchronized void remove(Entry<H> e) {
        if (e.linked) {
            unlink(e);
        }
    }

    /**
     * A connection was answered (or got a call): it becomes the youngest, the last to be evicted.
     *
     * @param e the connection; nothing happens if it is no longer in the table
     * @return whether it is in the table
     */
    public synchronized boolean answered(Entry<H> e) {
        if (!e.linked) {
            return false;
        }
        if (tail != e) {
            unlink(e);
            link(e, peers.computeIfAbsent(e.peer, k -> new Peer<>()));
        }
        return true;
    }

    /**
     * @param e a connection
     * @return whether it is in the table (admitted, not evicted nor removed)
     */
    public synchronized boolean contains(Entry<H> e) {
        return e.linked;
    }

    /** @return connections open */
    public synchronized int size() {
        return size;
    }

    /** @return connections closed to make room so far */
    public synchronized long evicted() {
        return evicted;
    }

    /** @return peer addresses with a connection open */
    public synchronized int addresses() {
        return peers.size();
    }

    /** The oldest entry of a list that is not being answered, else the oldest. */
    private static <H extends Handle> Entry<H> oldest(Entry<H> first, boolean peerList) {
        for (Entry<H> x = first; x != null; x = peerList ? x.peerNext : x.next) {
            if (!x.handle.busy()) {
                return x;
            }
        }
        return first;
    }

    private void link(Entry<H> e, Peer<H> p) {
        e.owner = p;
        e.linked = true;
        e.prev = tail;
        e.next = null;
        if (tail == null) {
            head = e;
        } else {
            tail.next = e;
        }
        tail = e;
        e.peerPrev = p.tail;
        e.peerNext = null;
        if (p.tail == null) {
            p.head = e;
        } else {
            p.tail.peerNext = e;
        }
        p.tail = e;
        p.count++;
        size++;
    }

    private void unlink(Entry<H> e) {
        e.linked = false;
        if (e.prev == null) {
            head = e.next;
        } else {
            e.prev.next = e.next;
        }
        if (e.next == null) {
            tail = e.prev;
        } else {
            e.next.prev = e.prev;
        }
        e.prev = null;
        e.next = null;
        Peer<H> p = e.owner;
        if (e.peerPrev == null) {
            p.head = e.peerNext;
        } else {
            e.peerPrev.peerNext = e.peerNext;
        }
        if (e.peerNext == null) {
            p.tail = e.peerPrev;
        } else {
            e.peerNext.peerPrev = e.peerPrev;
        }
        e.peerPrev = null;
        e.peerNext = null;
        if (--p.count == 0) {
            peers.remove(e.peer);
        }
        size--;
    }
}
