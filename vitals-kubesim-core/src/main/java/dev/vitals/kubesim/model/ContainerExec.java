package dev.vitals.kubesim.model;

import java.util.List;
import java.util.Optional;

/**
 * Where an exec probe's or exec hook's command runs. In a pod it runs inside the container: the
 * container runtime's exec (CRI {@code ExecSync}, runc exec) puts the new process in the
 * container's cgroups, so the container's CPU quota and memory limit hold for the probe too, and
 * a CPU-bound probe of a throttled container can overrun its {@code timeoutSeconds}.
 * Implementations must be thread-safe.
 */
@FunctionalInterface
public interface ContainerExec {

    /** Runs every command as it is, a local process outside any container's cgroup. */
    ContainerExec LOCAL = (instance, command) -> Optional.of(command);

    /**
     * The first line a command prints on stderr, and its exit code 125, when it could not join the
     * container's cgroup because the instance exited in between (see {@code ProcessRuntime}).
     */
    String JOIN_FAILED = "vitals: cannot join the container's cgroup";

    /**
     * @param instance the container instance the probe or hook targets (1, 2, …)
     * @param command the command, after {@code $(VAR)} expansion
     * @return the argv that runs {@code command} inside that instance; empty when the instance is
     *         not running (the runtime's exec fails, so the probe errors and the hook fails)
     */
    Optional<List<String>> argv(int instance, List<String> command);
}
