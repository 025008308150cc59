package dev.vitals.agent.impl;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * Worker-pool figures from the MBeans HTTP servers register themselves, read only from MBean
 * servers that already exist ({@link MBeanServerFactory#findMBeanServer}, the platform server
 * included once the application created it): the agent never creates one, because
 * {@code ManagementFactory.getPlatformMBeanServer()} loads and registers hundreds of classes in
 * the application's JVM.
 *
 * <p>Sources, with their attribute names as the servers spell them:
 * <ul>
 *   <li>Tomcat's connector pool, {@code Catalina:type=ThreadPool,name="http-nio-8080"} (Spring
 *       Boot's embedded Tomcat: domain {@code Tomcat}, registry off unless
 *       {@code server.tomcat.mbeanregistry.enabled=true}): {@code currentThreadsBusy},
 *       {@code maxThreads}; threads {@code <name>-exec-N}; its queue is not exposed;</li>
 *   <li>Tomcat's shared executor, {@code Catalina:type=Executor,name=...}: {@code activeCount},
 *       {@code maxThreads}, {@code queueSize}; threads {@code <namePrefix>N};</li>
 *   <li>Jetty's {@code QueuedThreadPool} when the application adds an {@code MBeanContainer},
 *       {@code org.eclipse.jetty.util.thread:type=queuedthreadpool,...}: {@code busyThreads},
 *       {@code maxThreads}, {@code queueSize}; threads {@code <name>-N};</li>
 *   <li>XNIO's worker (Undertow), {@code org.xnio:type=Xnio,provider="nio",worker="XNIO-1"}:
 *       {@code BusyWorkerThreadCount}, {@code MaxWorkerPoolSize}, {@code WorkerQueueSize};
 *       threads {@code <Name> task-N}.</li>
 * </ul>
 * A bean that cannot be read (unregistered in between, an attribute missing in another version)
 * is skipped. Not thread-safe: called from the sampler only.
 */
final class JmxPools {
    /**
     * One pool as its MBean shows it.
     *
     * @param source the MBean's name
     * @param threadPrefix the prefix of its threads' names
     * @param busy threads running a task, -1 when not shown
     * @param max the pool's maximum size, -1 when not shown
     * @param queued tasks waiting for a thread, -1 when not shown
     */
    record Pool(String source, String threadPrefix, long busy, long max, long queued) {
        /** @return the figures as one line, e.g. {@code Tomcat:type=ThreadPool,name="http-nio-8080" busy=8 max=8} */
        String describe() {
            return source + " busy=" + (busy < 0 ? "?" : busy) + " max=" + (max < 0 ? "?" : max)
                    + (queued < 0 ? "" : " queued=" + queued);
        }
    }

    private enum Kind {
        TOMCAT_POOL("type=ThreadPool,name=*", "currentThreadsBusy", "maxThreads", null, null),
        TOMCAT_EXECUTOR("type=Executor,name=*", "activeCount", "maxThreads", "queueSize", "namePrefix"),
        JETTY("org.eclipse.jetty.util.thread:type=queuedthreadpool,*", "busyThreads", "maxThreads", "queueSize", "name"),
        XNIO("org.xnio:type=Xnio,provider=*,worker=*", "BusyWorkerThreadCount", "MaxWorkerPoolSize", "WorkerQueueSize", "Name");

        final String pattern;
        final String busy;
        final String max;
        final String queue;
        final String name;

        Kind(String pattern, String busy, String max, String queue, String name) {
            this.pattern = pattern;
            this.busy = busy;
            this.max = max;
            this.queue = queue;
            this.name = name;
        }
    }

    private static final List<ObjectName> TOMCAT_POOLS = names("Catalina:" + Kind.TOMCAT_POOL.pattern, "Tomcat:" + Kind.TOMCAT_POOL.pattern);
    private static final List<ObjectName> TOMCAT_EXECUTORS = names("Catalina:" + Kind.TOMCAT_EXECUTOR.pattern,
            "Tomcat:" + Kind.TOMCAT_EXECUTOR.pattern);
    private static final List<ObjectName> JETTY = names(Kind.JETTY.pattern);
    private static final List<ObjectName> XNIO = names(Kind.XNIO.pattern);

    private JmxPools() {
    }

    private static List<ObjectName> names(String... patterns) {
        List<ObjectName> out = new ArrayList<>();
        try {
            for (String p : patterns) {
                out.add(new ObjectName(p));
            }
        } catch (MalformedObjectNameException e) {
            throw new IllegalStateException(e);
        }
        return List.copyOf(out);
    }

    /** @return whether the JVM has an MBean server yet (the agent never creates one) */
    static boolean available() {
        return !MBeanServerFactory.findMBeanServer(null).isEmpty();
    }

    /** @return every worker pool shown by an MBean server that exists now; empty when there is none */
    static List<Pool> read() {
        List<Pool> out = new ArrayList<>();
        for (MBeanServer s : MBeanServerFactory.findMBeanServer(null)) {
            out.addAll(read(s));
        }
        return out;
    }

    /** @return the worker pools {@code s} shows */
    static List<Pool> read(MBeanServer s) {
        List<Pool> out = new ArrayList<>();
        read(s, TOMCAT_POOLS, Kind.TOMCAT_POOL, out);
        read(s, TOMCAT_EXECUTORS, Kind.TOMCAT_EXECUTOR, out);
        read(s, JETTY, Kind.JETTY, out);
        read(s, XNIO, Kind.XNIO, out);
        return out;
    }

    private static void read(MBeanServer server, List<ObjectName> patterns, Kind kind, List<Pool> out) {
        for (ObjectName pattern : patterns) {
            Set<ObjectName> found;
            try {
                found = server.queryNames(pattern, null);
            } catch (RuntimeException e) {
                continue;
            }
            for (ObjectName n : found) {
                try {
                    Pool p = pool(server, n, kind);
                    if (p != null) {
                        out.add(p);
                    }
                } catch (Exception | LinkageError e) {
                    // unregistered in between, or another version's attributes: skip this bean
                }
            }
        }
    }

    private static Pool pool(MBeanServer server, ObjectName n, Kind kind) throws Exception {
        List<String> wanted = new ArrayList<>(List.of(kind.busy, kind.max));
        if (kind.queue != null) {
            wanted.add(kind.queue);
        }
        if (kind.name != null) {
            wanted.add(kind.name);
        }
        AttributeList got = server.getAttributes(n, wanted.toArray(new String[0]));
        long busy = -1;
        long max = -1;
        long queued = -1;
        String name = null;
        for (Attribute a : got.asList()) {
            Object v = a.getValue();
            if (a.getName().equals(kind.busy)) {
                busy = number(v);
            } else if (a.getName().equals(kind.max)) {
                max = number(v);
            } else if (a.getName().equals(kind.queue)) {
                queued = number(v);
            } else if (a.getName().equals(kind.name) && v != null) {
                name = v.toString();
            }
        }
        String prefix;
        switch (kind) {
            case TOMCAT_POOL:
                prefix = unquote(n.getKeyProperty("name")) + "-exec-";
                break;
            case TOMCAT_EXECUTOR:
                prefix = name;
                break;
            case JETTY:
                prefix = name == null ? null : name + "-";
                break;
            default:
                prefix = (name != null ? name : unquote(n.getKeyProperty("worker"))) + " task-";
        }
        if (prefix == null || prefix.isEmpty()) {
            return null;
        }
        return new Pool(n.toString(), prefix, busy, max, queued);
    }

    private static long number(Object v) {
        return v instanceof Number && ((Number) v).longValue() >= 0 ? ((Number) v).longValue() : -1;
    }

    private static String unquote(String v) {
        if (v != null && v.length() >= 2 && v.startsWith("\"")) {
            return ObjectName.unquote(v);
        }
        return v;
    }
}
