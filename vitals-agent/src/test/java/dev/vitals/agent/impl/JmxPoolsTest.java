package dev.vitals.agent.impl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vitals.Health;
import dev.vitals.HealthRegistry;
import dev.vitals.Status;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.DynamicMBean;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Worker pools read from MBeans shaped as Tomcat, Jetty and XNIO register them (object names and
 * attribute names as those servers spell them), in an MBean server of the test's own: the agent
 * finds it with {@code MBeanServerFactory.findMBeanServer}, as it finds the platform server once
 * the application created it. The pool behind the Jetty-shaped bean is a real executor.
 */
class JmxPoolsTest {
    private MBeanServer server;

    @BeforeEach
    void createServer() {
        server = MBeanServerFactory.createMBeanServer();
    }

    @AfterEach
    void releaseServer() {
        MBeanServerFactory.releaseMBeanServer(server);
    }

    /** A bean whose attributes are read live from suppliers: the servers' beans are dynamic too. */
    static final class Bean implements DynamicMBean {
        private final Map<String, Supplier<Object>> attributes;

        Bean(Map<String, Supplier<Object>> attributes) {
            this.attributes = attributes;
        }

        @Override
        public Object getAttribute(String name) throws javax.management.AttributeNotFoundException {
            Supplier<Object> s = attributes.get(name);
            if (s == null) {
                throw new javax.management.AttributeNotFoundException(name);
            }
            return s.get();
        }

        @Override
        public void setAttribute(Attribute attribute) {
            throw new UnsupportedOperationException();
        }

        @Override
        public AttributeList getAttributes(String[] names) {
            AttributeList out = new AttributeList();
            for (String n : names) {
                Supplier<Object> s = attributes.get(n);
                if (s != null) {
                    out.add(new Attribute(n, s.get()));
                }
            }
            return out;
        }

        @Override
        public AttributeList setAttributes(AttributeList attributes) {
            return new AttributeList();
        }

        @Override
        public Object invoke(String action, Object[] params, String[] signature) {
            throw new UnsupportedOperationException(action);
        }

        @Override
        public MBeanInfo getMBeanInfo() {
            return new MBeanInfo(Bean.class.getName(), "test", null, null, null, null);
        }
    }

    private void register(String name, Map<String, Supplier<Object>> attributes) throws Exception {
        server.registerMBean(new Bean(attributes), new ObjectName(name));
    }

    @Test
    void noMBeanServerNoFigures() {
        MBeanServerFactory.releaseMBeanServer(server);
        try {
            // The platform server, once created (UndertowPoolTest's XNIO does), stays for the JVM's life.
            org.junit.jupiter.api.Assumptions.assumeTrue(MBeanServerFactory.findMBeanServer(null).isEmpty(),
                    "an MBean server exists in this JVM already");
            assertThat(JmxPools.available()).isFalse();
            assertThat(JmxPools.read()).isEmpty();
        } finally {
            server = MBeanServerFactory.createMBeanServer();
        }
    }

    @Test
    void tomcatJettyAndXnioBeansAreRead() throws Exception {
        register("Tomcat:type=ThreadPool,name=\"http-nio-127.0.0.1-8080\"",
                Map.of("currentThreadsBusy", () -> 8, "maxThreads", () -> 8, "currentThreadCount", () -> 8));
        // Tomcat's socket-properties bean shares the type and must not count as a pool.
        register("Tomcat:type=ThreadPool,name=\"http-nio-127.0.0.1-8080\",subType=SocketProperties",
                Map.of("rxBufSize", () -> -1));
        register("Catalina:type=Executor,name=tomcatThreadPool",
                Map.of("activeCount", () -> 3, "maxThreads", () -> 200, "queueSize", () -> 5, "namePrefix", () -> "catalina-exec-"));
        register("org.eclipse.jetty.util.thread:type=queuedthreadpool,id=0",
                Map.of("busyThreads", () -> 4, "maxThreads", () -> 1024, "queueSize", () -> 7, "name", () -> "dw"));
        register("org.xnio:type=Xnio,provider=\"nio\",worker=\"XNIO-1\"",
                Map.of("BusyWorkerThreadCount", () -> 2, "MaxWorkerPoolSize", () -> 64, "WorkerQueueSize", () -> 1, "Name", () -> "XNIO-1"));

        List<JmxPools.Pool> pools = JmxPools.read(server);
        assertThat(JmxPools.read()).as("found among all MBean servers").containsAll(pools);

        assertThat(pools).extracting(JmxPools.Pool::threadPrefix)
                .containsExactlyInAnyOrder("http-nio-127.0.0.1-8080-exec-", "catalina-exec-", "dw-", "XNIO-1 task-");
        JmxPools.Pool tomcat = pools.stream().filter(p -> p.threadPrefix().startsWith("http-nio")).findFirst().orElseThrow();
        assertThat(tomcat.busy()).isEqualTo(8);
        assertThat(tomcat.max()).isEqualTo(8);
        assertThat(tomcat.queued()).as("Tomcat's connector pool does not show its queue").isEqualTo(-1);
        assertThat(tomcat.describe()).isEqualTo("Tomcat:type=ThreadPool,name=\"http-nio-127.0.0.1-8080\" busy=8 max=8");
        JmxPools.Pool jetty = pools.stream().filter(p -> p.threadPrefix().equals("dw-")).findFirst().orElseThrow();
        assertThat(jetty.queued()).isEqualTo(7);
        assertThat(jetty.busy()).isEqualTo(4);
        JmxPools.Pool xnio = pools.stream().filter(p -> p.threadPrefix().startsWith("XNIO")).findFirst().orElseThrow();
        assertThat(xnio.queued()).isEqualTo(1);
        assertThat(xnio.max()).isEqualTo(64);
    }

    @Test
    void aBeanWithoutItsAttributesIsSkippedNotFatal() throws Exception {
        register("org.eclipse.jetty.util.thread:type=queuedthreadpool,id=1", Map.of("somethingElse", () -> 1));
        assertThat(JmxPools.read(server)).isEmpty();
    }

    /**
     * A pool of any name found through its bean: two threads stuck with three requests queued is
     * DOWN with the queue in the message; the same pool saturated but completing stays UP.
     */
    @Test
    void aStalledPoolWithWaitingWorkIsDownAndASaturatedOneThatCompletesIsUp() throws Exception {
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor exec = new ThreadPoolExecutor(2, 2, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(),
                r -> new Thread(r, "orders-pool-" + n.incrementAndGet()));
        register("org.eclipse.jetty.util.thread:type=queuedthreadpool,id=7",
                Map.of("busyThreads", () -> exec.getActiveCount(), "maxThreads", () -> exec.getMaximumPoolSize(),
                        "queueSize", () -> exec.getQueue().size(), "name", () -> "orders-pool"));
        CountDownLatch never = new CountDownLatch(1);
        try (HealthRegistry r = HealthRegistry.builder().build()) {
            WorkerPools pools = new WorkerPools(List.of(), Duration.ofSeconds(2), r);
            java.util.concurrent.ScheduledExecutorService sampler = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
            try {
                sampler.scheduleWithFixedDelay(pools::sample, 0, 200, TimeUnit.MILLISECONDS);
                for (int i = 0; i < 5; i++) {
                    exec.execute(() -> {
                        try {
                            never.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> pools.health().status() == Status.DOWN);
                Health down = pools.health();
                assertThat(down.message()).hasValueSatisfying(m -> assertThat(m)
                        .startsWith("pool 'orders-pool-*': stalled: no task completed for").endsWith("with 2 running and 3 queued"));
                assertThat(down.details().get("orders-pool-*").toString()).contains("queued=3", "source=threads+jmx",
                        "[org.eclipse.jetty.util.thread:type=queuedthreadpool,id=7 busy=2 max=2 queued=3]");

                // Saturated but completing: both threads busy, a queue, every task finishing in 20 ms.
                never.countDown();
                AtomicInteger done = new AtomicInteger();
                java.util.concurrent.ScheduledFuture<?> feeder = sampler.scheduleAtFixedRate(() -> {
                    while (exec.getQueue().size() < 4) {
                        exec.execute(() -> {
                            try {
                                Thread.sleep(20);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            done.incrementAndGet();
                        });
                    }
                }, 0, 10, TimeUnit.MILLISECONDS);
                try {
                    await().atMost(Duration.ofSeconds(30)).until(() -> pools.health().status() == Status.UP);
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5); // 2.5 x stallAfter
                    while (System.nanoTime() < until) {
                        Health h = pools.health();
                        assertThat(h.status()).as(h.toString()).isEqualTo(Status.UP);
                        Thread.sleep(100);
                    }
                    assertThat(pools.health().details().get("orders-pool-*").toString()).contains("source=threads+jmx", "max=2");
                    assertThat(done.get()).isPositive();
                } finally {
                    feeder.cancel(false);
                }
            } finally {
                sampler.shutdownNow();
                pools.close();
            }
        } finally {
            never.countDown();
            exec.shutdownNow();
        }
    }
}
