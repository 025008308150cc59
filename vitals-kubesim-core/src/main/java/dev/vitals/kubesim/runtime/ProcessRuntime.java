package dev.vitals.kubesim.runtime;

import dev.vitals.kubesim.model.ContainerRuntime;
import dev.vitals.kubesim.model.ContainerExec;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.regex.Pattern;

/**
 * Runs the target command as "the container": each instance is a fresh child process, in a
 * fresh cgroup with the container's limits when {@link ResourceLimits} apply them (the child
 * joins it before it execs the command, through {@code sh}, or {@code systemd-run} starts it in a
 * user scope; the cgroup's counters are read when it exits, then the cgroup is removed). Exec
 * probes and exec hooks join the same cgroup ({@link #execArgv}). SIGTERM is {@link Process#destroy()}, SIGKILL is {@link Process#destroyForcibly()} (also for
 * every process of the instance, like a container teardown); other signals go through {@code kill(1)}.
 *
 * <p><b>No process outlives its container</b> (issue 40). Each instance's processes are kept
 * together the strongest way the host allows ({@link Containment}): its cgroup (the limits' one,
 * or a bare one when no limits are set but cgroups can be created), else a process group of its
 * own (the command started through {@code setsid(1)}), else its descendants as last seen. When the
 * main process ends — a crash, the kubelet's kill, a restart, the end of the run — what is left
 * there is SIGKILLed at once, as the kernel ends a PID namespace whose init has ended, and counted
 * ({@link #reapedProcesses()}); {@link Instance#shutdown} sends SIGTERM to all of them, then
 * SIGKILL after the grace period; an interrupted run reaps them all ({@link ProcessReaper}).
 * Thread-safe.
 */
public final class ProcessRuntime implements ContainerRuntime {
    private static final Pattern SIGNAL = Pattern.compile("[A-Z0-9]{2,8}");
    private final List<String> command;
    private final ProcessBuilder.Redirect output;
    private final Map<String, String> env;
    private final File workDir;
    private final ResourceLimits limits;
    /** The cgroups of the instances running now, for {@link #execArgv}. */
    private final Map<Integer, Cgroup> live = new ConcurrentHashMap<>();
    private final Containment containment;
    /** Processes other than an instance's main one that ended with it; each counted once. */
    private final java.util.Set<ProcessHandle> reaped = ConcurrentHashMap.newKeySet();

    /**
     * How an instance's processes are kept together, strongest first; a runtime uses the
     * strongest the host offers (never one stronger than asked, for tests).
     */
    enum Containment {
        /** A cgroup per instance: nothing the command starts can leave it. */
        CGROUP,
        /** A process group per instance ({@code setsid(1)}): a {@code setsid} in the command escapes. */
        PROCESS_GROUP,
        /** The main process's descendants as last seen: a process orphaned between two looks escapes. */
        DESCENDANTS
    }

    /**
     * @param command the command and its arguments (non-empty)
     * @param output where the child's stdout and stderr go (e.g. {@link ProcessBuilder.Redirect#DISCARD})
     * @param env extra environment variables
     * @param workDir working directory, or null for the current one
     * @throws IllegalArgumentException when the command is empty
     */
    public ProcessRuntime(List<String> command, ProcessBuilder.Redirect output, Map<String, String> env, File workDir) {
        this(command, output, env, workDir, ResourceLimits.of(dev.vitals.kubesim.model.Resources.NONE));
    }

    /**
     * @param command the command and its arguments (non-empty)
     * @param output where the child's stdout and stderr go
     * @param env extra environment variables
     * @param workDir working directory, or null for the current one
     * @param limits the container's resources and how they are applied
     * @throws IllegalArgumentException when the command is empty
     */
    public ProcessRuntime(List<String> command, ProcessBuilder.Redirect output, Map<String, String> env, File workDir,
            ResourceLimits limits) {
        this(command, output, env, workDir, limits, Containment.CGROUP);
    }

    /**
     * @param command the command and its arguments (non-empty)
     * @param output where the child's stdout and stderr go
     * @param env extra environment variables
     * @param workDir working directory, or null for the current one
     * @param limits the container's resources and how they are applied
     * @param containment the strongest containment to use (tests ask for a weaker one)
     */
    ProcessRuntime(List<String> command, ProcessBuilder.Redirect output, Map<String, String> env, File workDir,
            ResourceLimits limits, Containment containment) {
        this.containment = Objects.requireNonNull(containment, "containment");
        this.limits = Objects.requireNonNull(limits, "limits");
        if (command.isEmpty()) {
            throw new IllegalArgumentException("command must not be empty");
        }
        this.command = List.copyOf(command);
        this.output = Objects.requireNonNull(output, "output");
        this.env = Map.copyOf(env);
        this.workDir = workDir;
    }

    /**
     * The wrapper that moves itself into the cgroup, then execs the command: the command's
     * first instruction already runs under the limits (a JVM sizes its heap and thread pools
     * from them at startup), and so does every process it forks. Exit code 125 and
     * {@link ContainerExec#JOIN_FAILED} on stderr when joining fails (the cgroup was removed).
     * Writing the child's pid into {@code cgroup.procs} from here after {@code start()} would race
     * with the child: what it forks or burns before the write stays outside, and a command that
     * has already exited leaves the write failing (ESRCH) or hitting a reused pid.
     */
    private static final String JOIN = "for f do case $f in --) break;; esac; { echo $$ > \"$f\"; } 2>/dev/null"
            + " || { echo \"" + ContainerExec.JOIN_FAILED + " ($f)\" >&2; exit 125; }; shift; done; shift; exec \"$@\"";

    /** @return the argv that runs {@code command} inside {@code cgroup}, through the {@link #JOIN} wrapper */
    private static List<String> joining(Cgroup cgroup, List<String> command) {
        List<String> argv = new ArrayList<>(List.of("sh", "-c", JOIN, "vitals-cgroup"));
        cgroup.procsFiles().forEach(f -> argv.add(f.toString()));
        argv.add("--");
        argv.addAll(command);
        return argv;
    }

    /**
     * Where an exec probe or exec hook of instance {@code instance} runs: inside that instance's
     * cgroup, as the container runtime's exec runs it (see {@link ContainerExec}). Without limits
     * applied, the command as it is. Thread-safe.
     *
     * @param instance the container instance (1, 2, …)
     * @param command the command
     * @return the argv joining the instance's cgroup; empty when limits are applied and the
     *         instance is not running (its cgroup is gone)
     */
    public Optional<List<String>> execArgv(int instance, List<String> command) {
        if (!limits.applied()) {
            return Optional.of(List.copyOf(command));
        }
        Cgroup g = live.get(instance);
        return g == null ? Optional.empty() : Optional.of(joining(g, command));
    }

    @Override
    public Instance start(int instance, IntConsumer onExit) {
        Optional<Cgroup> cgroup;
        try {
            cgroup = limits.create(instance);
        } catch (IOException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        if (cgroup.isEmpty() && containment == Containment.CGROUP) {
            cgroup = ResourceLimits.bareCgroup(); // no limits: a cgroup only to hold the processes
        }
        boolean group = cgroup.isEmpty() && containment != Containment.DESCENDANTS && ResourceLimits.setsid().isPresent();
        ProcessBuilder pb = new ProcessBuilder(argv(cgroup, group)).redirectErrorStream(true).redirectOutput(output)
                .redirectInput(ProcessBuilder.Redirect.PIPE);
        pb.environment().putAll(env);
        pb.environment().put("VITALS_KUBESIM_INSTANCE", Integer.toString(instance));
        if (workDir != null) {
            pb.directory(workDir);
        }
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            cgroup.ifPresent(Cgroup::destroy);
            throw new IllegalStateException("cannot start " + command.get(0) + ": " + e.getMessage(), e);
        }
        Enclosure enclosure = cgroup.map(Enclosure::of)
                .orElseGet(() -> group ? Enclosure.processGroup(p.pid()) : Enclosure.descendants(p.toHandle()));
        ProcessReaper.track(p, enclosure);
        Optional<Cgroup> limited = limits.applied() ? cgroup : Optional.empty();
        cgroup.ifPresent(g -> g.started(p.pid()));
        limited.ifPresent(g -> live.put(instance, g));
        ProcessInstance handle = new ProcessInstance(p, enclosure, reaped);
        Optional<Cgroup> held = cgroup;
        handle.ended = p.onExit().thenApply(done -> exited(instance, done, handle, held, limited));
        handle.ended.thenAccept(onExit::accept);
        return handle;
    }

    /** @return the command line: joined to its cgroup, or under setsid for a process group of its own, or as given */
    private List<String> argv(Optional<Cgroup> cgroup, boolean group) {
        if (cgroup.isPresent()) {
            Cgroup g = cgroup.get();
            return g.launch(command).orElseGet(() -> joining(g, command));
        }
        if (group) {
            List<String> argv = new ArrayList<>();
            argv.add(ResourceLimits.setsid().get().toString()); // not a group leader: setsid(2) then exec, same pid
            argv.addAll(command);
            return argv;
        }
        return command;
    }

    /**
     * The instance's main process ended: its cgroup's counters and the reason recorded, what it left
     * behind reaped, its cgroup removed.
     *
     * @return its exit code
     */
    private int exited(int instance, Process done, ProcessInstance handle, Optional<Cgroup> held, Optional<Cgroup> limited) {
        int code = done.exitValue();
        live.remove(instance, held.orElse(null));
        try {
            if (limited.isPresent()) {
                ResourceUsage u = limited.get().usage();
                String reason = ResourceLimits.reason(code, u);
                handle.reason = reason;
                limits.record(new ResourceLimits.InstanceUsage(instance, code, reason, u));
            }
        } finally {
            // the container ends with its main process: what it left behind goes too
            reaped.addAll(ProcessReaper.ended(done.toHandle()));
            held.ifPresent(Cgroup::destroy);
        }
        return code;
    }

    /**
     * @return processes other than the main one that ended with their instance so far (a
     *         double-forked daemon, a {@code setsid} child: signalled by a kill or the end of the run,
     *         or killed when the main process ended), all instances
     */
    public int reapedProcesses() {
        return reaped.size();
    }

    /** @return how this runtime keeps an instance's processes together on this host, for reports */
    public String containment() {
        if (limits.applied() || (containment == Containment.CGROUP && ResourceLimits.bareCgroupAvailable())) {
            return "cgroup";
        }
        return containment != Containment.DESCENDANTS && ResourceLimits.setsid().isPresent() ? "process group" : "descendants";
    }

    /** @return the command */
    public List<String> command() {
        return command;
    }

    /** @return the container's resources and how this runtime applies them */
    public ResourceLimits limits() {
        return limits;
    }

    private static final class ProcessInstance implements Instance {
        private final Process process;
        private final Enclosure enclosure;
        private final java.util.Set<ProcessHandle> reaped;
        private volatile java.util.concurrent.CompletableFuture<Integer> ended;
        private volatile String reason;

        ProcessInstance(Process process, Enclosure enclosure, java.util.Set<ProcessHandle> reaped) {
            this.process = process;
            this.enclosure = enclosure;
            this.reaped = reaped;
        }

        @Override
        public Optional<String> exitReason() {
            return Optional.ofNullable(reason);
        }

        @Override
        public String describe() {
            return "pid " + process.pid();
        }

        /** The kubelet's SIGTERM goes to the container's main process; the rest end with it. */
        @Override
        public void terminate() {
            ProcessReaper.noteDescendants(); // its children die with it, as in the container's cgroup
            process.destroy();
        }

        /** SIGKILL to every process of the instance: its cgroup, process group or descendants. */
        @Override
        public void kill() {
            reaped.addAll(ProcessReaper.kill(process.toHandle()));
        }

        /** SIGTERM to every process of the instance, SIGKILL after {@code grace} to what is left. */
        @Override
        public void shutdown(java.time.Duration grace) {
            ProcessReaper.noteDescendants();
            reaped.addAll(ProcessReaper.shutdown(process.toHandle(), grace));
            try {
                // the exit's cgroup counters are read and the cgroup removed before this returns
                ended.get(5, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // the instance's usage is left out of the report
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                kill();
            }
        }

        @Override
        public String toString() {
            return describe() + " in " + enclosure.describe();
        }

        @Override
        public void pause() {
            signal("STOP");
        }

        @Override
        public void resume() {
            signal("CONT");
        }

        @Override
        public void signal(String name) {
            String sig = name.toUpperCase(Locale.ROOT);
            if (sig.startsWith("SIG")) {
                sig = sig.substring(3);
            }
            if (!SIGNAL.matcher(sig).matches()) {
                throw new IllegalArgumentException("not a signal name: '" + name + "'");
            }
            List<String> cmd = new ArrayList<>(List.of("kill", "-" + sig, Long.toString(process.pid())));
            if (sig.equals("STOP") || sig.equals("CONT")) {
                process.descendants().forEach(h -> cmd.add(Long.toString(h.pid())));
            }
            try {
                Process k = new ProcessBuilder(cmd).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (!k.waitFor(5, TimeUnit.SECONDS)) {
                    k.destroyForcibly();
                    throw new IllegalStateException("kill -" + sig + " did not finish in 5 s");
                }
                if (k.exitValue() != 0 && process.isAlive()) {
                    throw new IllegalArgumentException("kill -" + sig + " failed with exit code " + k.exitValue());
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot run kill(1): " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while signalling", e);
            }
        }
    }
}
