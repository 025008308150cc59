package dev.vitals.kubesim.runtime;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A target run as a child JVM under a cgroup. {@code report FILE}: writes
 * {@code availableProcessors maxMemory} to FILE, then stays up for at most 60 s.
 * {@code allocate MIB}: allocates and touches MIB mebibytes, 16 at a time, then stays up for at
 * most 60 s (a memory limit below MIB ends it first).
 */
public final class LimitsTarget {
    private LimitsTarget() {
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("report")) {
            Runtime rt = Runtime.getRuntime();
            Path tmp = Path.of(args[1] + ".tmp");
            Files.writeString(tmp, rt.availableProcessors() + " " + rt.maxMemory());
            Files.move(tmp, Path.of(args[1]), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } else if (args[0].equals("allocate")) {
            List<byte[]> held = new ArrayList<>();
            for (int i = 0; i < Integer.parseInt(args[1]) / 16; i++) {
                byte[] b = new byte[16 << 20];
                for (int j = 0; j < b.length; j += 4096) {
                    b[j] = 1;
                }
                held.add(b);
            }
            System.out.println("allocated " + held.size() * 16 + " MiB");
        }
        Thread.sleep(60_000);
    }
}
