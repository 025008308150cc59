/**
 * Monitors: background samplers that measure whether the process is making progress and how
 * saturated it is (DESIGN.md P2, P7), and turn those figures into checks.
 *
 * <ul>
 *   <li>{@link dev.vitals.monitor.SaturationMonitor}: busy, capacity, queued and saturation of a
 *       pool or limiter; a check for readiness or a custom group, never liveness.</li>
 *   <li>{@link dev.vitals.monitor.ProgressWatchdog}: "saturated but completing work" versus
 *       "stalled"; a liveness check.</li>
 *   <li>{@link dev.vitals.monitor.LagMonitor}: how late a heartbeat runs on a scheduler or event
 *       loop; a liveness check with a stall bound, and lower bounds for other groups.</li>
 *   <li>{@link dev.vitals.monitor.PauseDetector}: JVM pauses (a hiccup meter); figures only by
 *       default.</li>
 *   <li>{@link dev.vitals.monitor.DeadlockMonitor}: monitor and ownable-synchronizer deadlocks;
 *       a liveness check.</li>
 *   <li>{@link dev.vitals.monitor.MemoryMonitor}: heap used after the last collection.</li>
 *   <li>{@link dev.vitals.monitor.ListenerMonitor}: the application's own listener still
 *       accepts connections (field case C06).</li>
 *   <li>{@link dev.vitals.monitor.LivenessSet}: the default liveness set in one call.</li>
 * </ul>
 *
 * <h2>How a monitor runs</h2>
 * A monitor is built unstarted, its check is registered with a {@link dev.vitals.HealthRegistry},
 * then the monitor is started with the registry's clock and scheduler:
 * <pre>{@code
 * ProgressWatchdog workers = ProgressWatchdog.builder("workers", ProgressSource.of(pool)).build();
 * HealthRegistry registry = HealthRegistry.builder().register(workers.check().build()).build();
 * workers.start(registry);   // samples on registry.scheduler(), reads registry.clock()
 * registry.start();
 * }</pre>
 * Outside {@code start}…{@code close} a monitor's check reads UNKNOWN ("monitor not started" /
 * "monitor closed"); started without a sample yet, and before the registry first runs it, it
 * reads UP "starting: no sample yet" (liveness never fails before a monitor's first sample).
 * All monitors share one package-private template for this lifecycle and their builders'
 * common settings (name, interval).
 * Every monitor samples its source on Vitals' {@link dev.vitals.Scheduler}, once per interval
 * and once synchronously in {@code start}; never when a probe or a check reads it. A check
 * built from a monitor only reads the latest immutable snapshot (a volatile read plus one small
 * {@link dev.vitals.Health}), so a check run costs the same whatever the source. Sampling costs
 * are stated per source; the one exception to "sampling runs on the scheduler" is the
 * {@link dev.vitals.monitor.PauseDetector}, whose measuring thread must sleep.
 *
 * <p>Figures are exposed as small immutable snapshot values ({@link
 * dev.vitals.monitor.SaturationSnapshot}, {@link dev.vitals.monitor.LagSnapshot}, ...) so that a
 * metrics binder can read them without running a check.
 *
 * <p>No method of this package accepts or returns {@code null}: absent values are
 * {@link java.util.Optional}, and null arguments are rejected with a
 * {@link java.lang.NullPointerException} naming the parameter. All monitors are thread-safe.
 */
package dev.vitals.monitor;
