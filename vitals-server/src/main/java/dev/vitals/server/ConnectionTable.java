package dev.vitals.server;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The probe server's connection policy (DESIGN.md 6b): which connections are open, from which
 * peer address, and which to close to make room. At the limit the server never refuses the
 * newest connection (a kubelet probe is always a new connection); it closes the connection that
 * has gone longest without being answered: one that sent nothing, part of a request, or sits idle
 * between kept-alive requests. A connection whose answer is being prepared is passed over while
 * any other can go. A peer address holding its share of the limit makes room among its own
 * connections, so one source can neither take the whole limit nor push out other sources.
 *
 * <p>Order: each connection is kept in two lists, all connections and its peer's, ordered by the
 * time it was opened or last answered (an answer moves it to the end). Thread-safe: every method
 * holds the table's lock for a few pointer moves (and, when evicting, a walk past connections
 * being answered).
 */
final class ConnectionTable {
    /**
     * A transport's connection, as the table sees it: something it can ask to close. Called from
     * any thread; the transport closes the connection on its own event loop, at once when called
     * there.
     */
    interface Handle {
        void evict();
    }

    /** One open connection. Fields other than {@code busy} are guarded by the table's lock. */
    static final class Entry {
        final Handle handle;
        final InetAddress peer;
        volatile boolean busy;
        private Entry prev;
        private Entry next;
        private Entry peerPrev;
        private Entry peerNext;
        private Peer owner;
        private boolean linked;

        Entry(Handle handle, InetAddress peer) {
            this.handle = handle;
            this.peer = peer;
        }
    }

    private static final class Peer {
        Entry head;
        Entry tail;
        int count;
    }

    private final int max;
    private final int perAddress;
    private final Map<InetAddress, Peer> peers = new HashMap<>();
    private Entry head;
    private Entry tail;
    private int size;
    private long evicted;

    ConnectionTable(int max, int perAddress) {
        this.max = max;
        this.perAddress = perAddress;
    }

    /**
     * Admits a new connection, choosing the connections to close to make room (at most one in
     * practice). The caller closes them, outside the lock.
     *
     * @return the connections evicted, unlinked already; empty when there was room
     */
    synchronized List<Entry> admit(Entry e) {
        List<Entry> victims = List.of();
        Peer p = peers.get(e.peer);
        if (p != null && p.count >= perAddress) {
            victims = new ArrayList<>(1);
            Entry v = oldest(p.head, true);
            unlink(v);
            victims.add(v);
        }
        while (size >= max) {
            if (victims.isEmpty()) {
                victims = new ArrayList<>(1);
            }
            Entry v = oldest(head, false);
            unlink(v);
            victims.add(v);
        }
        evicted += victims.size();
        link(e, peers.computeIfAbsent(e.peer, k -> new Peer()));
        return victims;
    }

    /** Removes a closed connection; does nothing if it was evicted or removed before. */
    synchronized void remove(Entry e) {
        if (e.linked) {
            unlink(e);
        }
    }

    /** A connection was answered: it becomes the youngest, the last to be evicted. */
    synchronized void answered(Entry e) {
        if (!e.linked || tail == e) {
            return;
        }
        unlink(e);
        link(e, peers.computeIfAbsent(e.peer, k -> new Peer()));
    }

    synchronized int size() {
        return size;
    }

    synchronized long evicted() {
        return evicted;
    }

    synchronized int addresses() {
        return peers.size();
    }

    /** The oldest entry of a list that is not being answered, else the oldest. */
    private static Entry oldest(Entry first, boolean peerList) {
        for (Entry x = first; x != null; x = peerList ? x.peerNext : x.next) {
            if (!x.busy) {
                return x;
            }
        }
        return first;
    }

    private void link(Entry e, Peer p) {
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

    private void unlink(Entry e) {
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
        Peer p = e.owner;
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
