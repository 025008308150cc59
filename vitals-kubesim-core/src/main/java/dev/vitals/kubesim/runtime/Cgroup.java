package dev.vitals.kubesim.runtime;

import dev.vitals.kubesim.model.Resources;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One container instance's cgroup: created with the container's limits before the process
 * starts, read when it exits, removed after. Implementations: {@link CgroupV1}, {@link CgroupV2}.
 */
interface Cgroup {

    /** @return the {@code cgroup.procs} files a process joins (one per v1 hierarchy; one in v2) */
    List<Path> procsFiles();

    /** @return the instance's counters now (read just after the process exited) */
    ResourceUsage usage();

    /** @return pids still in the cgroup */
    List<Long> pids();

    /** Removes the cgroup; kills what is left in it first. Best effort, bounded. */
    void destroy();

    /**
     * @param command the container's command
     * @return the argv that starts it in this cgroup when something else than joining
     *         {@link #procsFiles()} does it (systemd-run); empty: the runtime's join wrapper
     */
    default Optional<List<String>> launch(List<String> command) {
        return Optional.empty();
    }

    /** @param pid the process just started in this cgroup */
    default void started(long pid) {
    }

    /** Creates cgroups of one kind under a parent the current user may write. Thread-safe. */
    interface Driver {
        /** @return e.g. {@code cgroup v1 (cpu: /sys/fs/cgroup/cpu, memory: ...)} */
        String describe();

        /**
         * @param name a name unique on this host, e.g. {@code vitals-4242-3}
         * @param resources the limits to write
         * @return the cgroup, its limits written
         * @throws IOException when it cannot be created or a limit cannot be written (nothing is left behind)
         */
        Cgroup create(String name, Resources resources) throws IOException;
    }

    /**
     * The cgroup driver this process can use, or why there is none.
     *
     * @param driver the driver, when cgroups with CPU and memory control can be created
     * @param reason why not, when {@code driver} is empty
     */
    record Availability(Optional<Driver> driver, String reason) {
        /** @return the driver, or the reason none */
        public String describe() {
            return driver.map(Driver::describe).orElse(reason);
        }
    }

    /**
     * Finds the driver for this process: cgroup v1 when the {@code cpu} and {@code memory}
     * hierarchies are mounted and writable, else cgroup v2 when the unified hierarchy has both
     * controllers and this process's cgroup can delegate them, else (a user without a writable
     * subtree) {@code systemd-run --user --scope} from the {@code PATH} when the unified hierarchy
     * is mounted and systemd-run works.
     *
     * @return the driver or the reason there is none; never throws
     */
    static Availability detect() {
        try {
            return detect(Files.readString(Path.of("/proc/self/mountinfo")), Files.readString(Path.of("/proc/self/cgroup")),
                    Path.of("/"), Optional.ofNullable(System.getenv("PATH")).orElse(""));
        } catch (IOException | RuntimeException e) {
            return new Availability(Optional.empty(), "cannot read /proc/self/mountinfo or /proc/self/cgroup: " + e.getMessage());
        }
    }

    /**
     * @param mountinfo {@code /proc/self/mountinfo}'s text
     * @param selfCgroup {@code /proc/self/cgroup}'s text
     * @param fsRoot where the paths of {@code mountinfo} are (the real {@code /}, or a test's temp dir)
     * @return the driver or the reason there is none
     */
    static Availability detect(String mountinfo, String selfCgroup, Path fsRoot) {
        return detect(mountinfo, selfCgroup, fsRoot, "");
    }

    /**
     * @param mountinfo {@code /proc/self/mountinfo}'s text
     * @param selfCgroup {@code /proc/self/cgroup}'s text
     * @param fsRoot where the paths of {@code mountinfo} are (the real {@code /}, or a test's temp dir)
     * @param pathEnv the {@code PATH} to find {@code systemd-run} in
     * @return the driver or the reason there is none
     */
    static Availability detect(String mountinfo, String selfCgroup, Path fsRoot, String pathEnv) {
        Availability v1 = CgroupV1.detect(mountinfo, selfCgroup, fsRoot);
        if (v1.driver().isPresent()) {
            return v1;
        }
        Availability v2 = CgroupV2.detect(mountinfo, selfCgroup, fsRoot);
        if (v2.driver().isPresent()) {
            return v2;
        }
        Optional<Mount> unified = Mount.parse(mountinfo).stream().filter(m -> m.fsType().equals("cgroup2")).findFirst();
        Optional<Path> systemdRun = CgroupSystemd.onPath(pathEnv);
        String why = v1.reason() + "; " + v2.reason();
        if (unified.isEmpty()) {
            return new Availability(Optional.empty(), why);
        }
        if (systemdRun.isEmpty()) {
            return new Availability(Optional.empty(), why + "; no systemd-run on the PATH for a delegated user scope");
        }
        Availability scope = CgroupSystemd.detect(systemdRun.get(), unified.get().dir(fsRoot, "/"));
        return scope.driver().isPresent() ? scope : new Availability(Optional.empty(), why + "; " + scope.reason());
    }

    /**
     * Reads a control file.
     *
     * @param file the control file
     * @return the file's trimmed text, or empty when it does not exist
     */
    static Optional<String> read(Path file) {
        try {
            return Optional.of(Files.readString(file, StandardCharsets.UTF_8).trim());
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * Reads one key of a flat-keyed control file such as {@code cpu.stat} or {@code memory.events}.
     *
     * @param file the control file
     * @param key the key, e.g. {@code nr_throttled}
     * @return the value of {@code key} in a flat-keyed file ({@code key value} lines)
     */
    static OptionalLong keyed(Path file, String key) {
        Optional<String> text = read(file);
        if (text.isEmpty()) {
            return OptionalLong.empty();
        }
        for (String line : text.get().split("\n")) {
            String[] kv = line.trim().split("\\s+");
            if (kv.length == 2 && kv[0].equals(key)) {
                try {
                    return OptionalLong.of(Long.parseLong(kv[1]));
                } catch (NumberFormatException e) {
                    return OptionalLong.empty();
                }
            }
        }
        return OptionalLong.empty();
    }

    /**
     * Reads a control file holding one number, such as {@code memory.peak}.
     *
     * @param file the control file
     * @return the file's single number
     */
    static OptionalLong number(Path file) {
        Optional<String> text = read(file);
        try {
            return text.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(text.get()));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * Writes one value to a control file.
     *
     * @param file the control file
     * @param value the text written, e.g. {@code 50000 100000} to {@code cpu.max}
     * @throws IOException when the kernel refuses the value or the file is not writable
     */
    static void write(Path file, String value) throws IOException {
        Files.writeString(file, value, StandardCharsets.UTF_8);
    }

    /** One line of {@code /proc/self/mountinfo}: mount point, mount root, fs type, super options. */
    record Mount(String mountPoint, String root, String fsType, List<String> superOptions) {
        static List<Mount> parse(String mountinfo) {
            List<Mount> out = new java.util.ArrayList<>();
            for (String line : mountinfo.split("\n")) {
                String[] f = line.trim().split(" ");
                int dash = java.util.Arrays.asList(f).indexOf("-");
                if (dash < 5 || f.length < dash + 4) {
                    continue;
                }
                out.add(new Mount(unescape(f[4]), unescape(f[3]), f[dash + 1], List.of(f[dash + 3].split(","))));
            }
            return out;
        }

        private static String unescape(String s) {
            return s.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\");
        }

        /** @return the directory of cgroup {@code path} under this mount, below {@code fsRoot} */
        Path dir(Path fsRoot, String path) {
            String rel = path;
            if (!root.equals("/") && rel.startsWith(root)) {
                rel = rel.substring(root.length());
            }
            Path mp = fsRoot.resolve(mountPoint.substring(1));
            String r = rel.startsWith("/") ? rel.substring(1) : rel;
            return r.isEmpty() ? mp : mp.resolve(r);
        }
    }

    /**
     * @param selfCgroup {@code /proc/self/cgroup}'s text
     * @param controller e.g. {@code memory}; {@code ""} for the v2 line {@code 0::/path}
     * @return this process's cgroup path in that hierarchy
     */
    static Optional<String> selfPath(String selfCgroup, String controller) {
        for (String line : selfCgroup.split("\n")) {
            String[] f = line.trim().split(":", 3);
            if (f.length != 3) {
                continue;
            }
            if (controller.isEmpty() ? f[0].equals("0") && f[1].isEmpty() : List.of(f[1].split(",")).contains(controller)) {
                return Optional.of(f[2]);
            }
        }
        return Optional.empty();
    }
}
