package dev.vitals.kubesim.lint;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Reader;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.parser.ParserImpl;
import org.snakeyaml.engine.v2.scanner.StreamReader;

/**
 * The lint stream benchmark's two halves: {@link #generate} writes a multi-document stream of
 * Deployments (each ≈ 25 KB: a long env list, annotations, probes of several shapes) with
 * ConfigMaps between them; {@link #main} lints it and prints time and peak heap, then the
 * references measured in the same JVM: reading the text, and snakeyaml-engine's parser alone
 * (events, no tree). Run by {@link LintStreamBenchmarkTest} in a child JVM with a 256 MiB heap.
 */
public final class LintStreamBench {
    private LintStreamBench() {
    }

    /**
     * @param file where to write
     * @param workloads how many Deployments
     * @param targetBytes the stream's size to reach (ConfigMaps fill it up)
     * @return the bytes written
     */
    static long generate(Path file, int workloads, long targetBytes) throws IOException {
        long perWorkload = targetBytes / workloads;
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            long written = 0;
            for (int i = 0; i < workloads; i++) {
                StringBuilder d = new StringBuilder(30_000);
                d.append("---\n# Source: shop/templates/deployment-").append(i).append(".yaml\n")
                        .append("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: svc-").append(i)
                        .append("\n  labels: {app: svc-").append(i).append(", tier: backend}\n  annotations:\n")
                        .append("    deployment.kubernetes.io/revision: \"").append(i % 17).append("\"\n");
                if (i % 10 == 0) {
                    d.append("    ignore-check.vitals.dev/L1: \"one endpoint on purpose\"\n");
                }
                d.append("spec:\n  replicas: ").append(1 + i % 5).append("\n  selector:\n    matchLabels: {app: svc-").append(i)
                        .append("}\n  template:\n    metadata:\n      labels: {app: svc-").append(i).append("}\n    spec:\n")
                        .append("      containers:\n      - name: app\n        image: registry.example.com/svc-").append(i)
                        .append(":1.").append(i).append("\n        ports:\n        - {name: http, containerPort: 8080}\n")
                        .append("        - {name: probes, containerPort: 8081}\n");
                switch (i % 4) {
                    case 0: // same endpoint: L1, L4
                        d.append("        livenessProbe:\n          httpGet: {path: /health, port: http}\n")
                                .append("        readinessProbe:\n          httpGet: {path: /health, port: http}\n");
                        break;
                    case 1: // clean: a probe server of its own
                        d.append("        startupProbe:\n          httpGet: {path: /livez, port: probes}\n          failureThreshold: 30\n")
                                .append("        livenessProbe:\n          httpGet: {path: /livez, port: probes}\n")
                                .append("        readinessProbe:\n          httpGet: {path: /readyz, port: probes}\n");
                        break;
                    case 2: // exec through a shell: L6, L8
                        d.append("        livenessProbe:\n          exec:\n            command: [sh, -c, 'curl -sf localhost:8080/health']\n")
                                .append("          initialDelaySeconds: 45\n");
                        break;
                    default: // undeclared port, a value the API server rejects
                        d.append("        livenessProbe:\n          tcpSocket: {port: 9999}\n          successThreshold: 2\n")
                                .append("        readinessProbe:\n          httpGet: {path: /readyz, port: 8080}\n");
                }
                d.append("        env:\n");
                int e = 0;
                while (d.length() < perWorkload * 0.6) {
                    d.append("        - name: FEATURE_FLAG_").append(e).append("\n          value: \"")
                            .append("enabled-for-tenant-").append(e * 31 % 997).append("-region-eu-west-").append(e % 3).append("\"\n");
                    e++;
                }
                d.append("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: svc-").append(i).append("-config\ndata:\n");
                int k = 0;
                while (d.length() < perWorkload) {
                    d.append("  key-").append(k++).append(": \"").append("x".repeat(60)).append("\"\n");
                }
                w.write(d.toString());
                written += d.length();
            }
            return written;
        }
    }

    /**
     * @param args the stream to lint
     */
    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        String mode = args.length > 1 ? args[1] : "lint";
        List<MemoryPoolMXBean> heap = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP).collect(java.util.stream.Collectors.toList());
        System.gc();
        heap.forEach(MemoryPoolMXBean::resetPeakUsage);
        java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = threads.getCurrentThreadCpuTime();
        long proc0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        String what;
        if (mode.equals("lint")) {
            LintReport r = new Linter(Rules.all(), LintContext.empty(), Optional.empty()).lint(List.of(LintInput.file(file)));
            what = String.format(Locale.ROOT, "%d workloads, %d containers, %d errors, %d warnings, %d suppressed",
                    r.workloads(), r.containers(), r.count(Severity.ERROR), r.count(Severity.WARNING), r.suppressed().size());
        } else if (mode.equals("parse")) {
            long events = 0;
            try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                LoadSettings settings = LoadSettings.builder().setCodePointLimit(Integer.MAX_VALUE).build();
                for (var parser = new ParserImpl(settings, new StreamReader(settings, in)); parser.hasNext(); parser.next()) {
                    events++;
                }
            }
            what = events + " events";
        } else {
            long chars = 0;
            char[] buf = new char[64 * 1024];
            try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                for (int n; (n = in.read(buf)) > 0;) {
                    chars += n;
                }
            }
            what = chars + " chars";
        }
        long ns = System.nanoTime() - t0;
        double cpu = (threads.getCurrentThreadCpuTime() - cpu0) / 1e9;
        double proc = (os.getProcessCpuTime() - proc0) / 1e9;
        long peak = heap.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
        System.out.println(String.format(Locale.ROOT, "%s: %.2f s wall, %.2f s CPU of the thread, %.2f s CPU of the JVM"
                + " (GC, JIT); peak heap %.0f MiB (max heap %.0f MiB); %s", mode, ns / 1e9, cpu, proc,
                peak / 1048576.0, Runtime.getRuntime().maxMemory() / 1048576.0, what));
    }
}
