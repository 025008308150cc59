package dev.vitals.kubesim.runtime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Every process of one container instance, found the strongest way this host allows, so that
 * none outlives the container (issue 40): its <b>cgroup</b> ({@code cgroup.procs}: whatever the
 * command forks, double-forks or {@code setsid}s stays in it, as in a container), else its
 * <b>process group</b> (the command started as a group leader through {@code setsid(1)}: a
 * double fork stays in it, a {@code setsid} or {@code setpgid} in the command escapes), else the
 * <b>descendants</b> of the main process as last seen (a process orphaned between two looks
 * escapes). Thread-safe.
 */
interface Enclosure {
    /** @return e.g. {@code cgroup /sys/fs/cgroup/cpu/vitals-42-3} or {@code process group 4242} */
    String describe();

    /** @return the processes alive in it now (the main process too, while it runs) */
    List<ProcessHandle> members();

    /**
     * @param g the instance's cgroup
     * @return the processes in it
     */
    static Enclosure of(Cgroup g) {
        return new Enclosure() {
            @Override
            public String describe() {
                List<Path> files = g.procsFiles();
                return files.isEmpty() ? "its cgroup" : "cgroup " + files.get(0).getParent();
            }

            @Override
            public List<ProcessHandle> members() {
                List<ProcessHandle> out = new ArrayList<>();
                for (long pid : g.pids()) {
                    ProcessHandle.of(pid).ifPresent(out::add);
                }
                return out;
            }
        };
    }

    /**
     * @param pgid the group's id: the pid of its leader, the container's main process
     * @return the processes whose process group is {@code pgid} (Linux {@code /proc})
     */
    static Enclosure processGroup(long pgid) {
        return new Enclosure() {
            @Override
            public String describe() {
                return "process group " + pgid;
            }

            @Override
            public List<ProcessHandle> members() {
                List<ProcessHandle> out = new ArrayList<>();
                try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
                    for (Path p : procs) {
                        if (processGroupOf(p).orElse(-1L) == pgid) {
                            ProcessHandle.of(Long.parseLong(p.getFileName().toString())).ifPresent(out::add);
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    // no /proc: the group is out of sight; the main process's descendants still are
                }
                return out;
            }
        };
    }

    /**
     * @param main the container's main process
     * @return its descendants now, and the main process while it runs
     */
    static Enclosure descendants(ProcessHandle main) {
        return new Enclosure() {
            @Override
            public String describe() {
                return "the descendants of pid " + main.pid();
            }

            @Override
            public List<ProcessHandle> members() {
                List<ProcessHandle> out = new ArrayList<>();
                if (main.isAlive()) {
                    out.add(main);
                }
                main.descendants().forEach(out::add);
                return out;
            }
        };
    }

    /**
     * @param procDir {@code /proc/<pid>}
     * @return field 5 of its {@code stat} (the process group), after the command name in
     *         parentheses; empty for a zombie or a process gone
     */
    static Optional<Long> processGroupOf(Path procDir) {
        try {
            String stat = Files.readString(procDir.resolve("stat"), StandardCharsets.UTF_8);
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // state, ppid, pgrp; a zombie has ended (its parent has not collected it yet)
            return f[0].equals("Z") ? Optional.empty() : Optional.of(Long.parseLong(f[2]));
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // gone meanwhile
        }
    }
}
