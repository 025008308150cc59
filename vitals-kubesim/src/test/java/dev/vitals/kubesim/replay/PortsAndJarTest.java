package dev.vitals.kubesim.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PortsAndJarTest {

    @Test
    void picksDistinctFreePortsBelowTheEphemeralRange() throws IOException {
        int[] ports = Ports.pick(8);
        assertThat(Arrays.stream(ports).distinct().count()).isEqualTo(8);
        int low = Ports.ephemeralLow(Path.of("/proc/sys/net/ipv4/ip_local_port_range"));
        for (int p : ports) {
            if (low > 11_000) {
                assertThat(p).isBetween(10_000, low - 1);
            }
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), p)); // still free
            }
        }
    }

    /**
     * The real sysctl file: it answers only a read at offset 0 and reports size 0, so reading it
     * in pieces gave "3" and every replay port came from the ephemeral range, where the load's
     * outgoing connections could take it before the demo or the agent bound it ("address already
     * in use" at start, the incident-agent row passing 1 run in 3).
     */
    @Test
    void theKernelsEphemeralRangeIsReadWhole() throws IOException {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(range), "Linux only");
        String whole;
        try (java.io.BufferedReader r = Files.newBufferedReader(range)) {
            whole = r.readLine().trim();
        }
        int low = Ports.ephemeralLow(range);
        assertThat(low).as("first port of '%s'", whole).isEqualTo(Integer.parseInt(whole.split("\\s+")[0]));
        if (low > 11_000) {
            for (int p : Ports.pick(4)) {
                assertThat(p).isBetween(10_000, low - 1);
            }
        }
    }

    @Test
    void aPortInUseIsNotFree() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            assertThat(Ports.free(s.getLocalPort())).isFalse();
        }
    }

    @Test
    void ephemeralRangeIsReadOrUnknown(@TempDir Path dir) throws IOException {
        Path ok = Files.writeString(dir.resolve("range"), "32768\t60999\n");
        Path bad = Files.writeString(dir.resolve("bad"), "nonsense");
        Path cut = Files.writeString(dir.resolve("cut"), "3");
        assertThat(Ports.ephemeralLow(ok)).isEqualTo(32768);
        assertThat(Ports.ephemeralLow(bad)).isEqualTo(-1);
        assertThat(Ports.ephemeralLow(cut)).as("not a port range's start").isEqualTo(-1);
        assertThat(Ports.ephemeralLow(dir.resolve("missing"))).isEqualTo(-1);
    }

    @Test
    void findsTheDemoJarNextToTheModuleOfVitalsJar(@TempDir Path repo) throws IOException {
        Path vitalsJar = Files.createDirectories(repo.resolve("vitals-kubesim/target")).resolve("vitals.jar");
        Files.writeString(vitalsJar, "jar");
        assertThat(DemoJar.find(Optional.of(vitalsJar), repo.resolve("elsewhere"))).isEmpty();
        Path demo = Files.createDirectories(repo.resolve("vitals-demo/target")).resolve("vitals-demo.jar");
        Files.writeString(demo, "jar");
        assertThat(DemoJar.find(Optional.of(vitalsJar), repo.resolve("elsewhere"))).contains(demo.toAbsolutePath().normalize());
        // from test classes (target/classes) and from the working directory too
        Path classes = Files.createDirectories(repo.resolve("vitals-kubesim/target/classes"));
        assertThat(DemoJar.find(Optional.of(classes), Path.of("/nonexistent"))).contains(demo.toAbsolutePath().normalize());
        assertThat(DemoJar.find(Optional.empty(), repo)).contains(demo.toAbsolutePath().normalize());
    }

    @Test
    void aDemoJarCopiedNextToVitalsJarIsFound(@TempDir Path dir) throws IOException {
        Path vitalsJar = Files.writeString(dir.resolve("vitals.jar"), "jar");
        Path demo = Files.writeString(dir.resolve("vitals-demo.jar"), "jar");
        assertThat(DemoJar.find(Optional.of(vitalsJar), Path.of("/nonexistent"))).contains(demo.toAbsolutePath().normalize());
        assertThat(DemoJar.candidates(Optional.of(vitalsJar), dir)).first().isEqualTo(demo.toAbsolutePath().normalize());
    }
}
