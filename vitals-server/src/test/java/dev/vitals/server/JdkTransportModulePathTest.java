package dev.vitals.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import dev.vitals.HealthRegistry;
import dev.vitals.modulepath.JdkOnlyMain;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Netty is optional on the module path too (DESIGN.md 6a): a child JVM whose {@code --module-path}
 * holds vitals-server, vitals-core and jackson-core only — no Netty jar anywhere — runs
 * {@link JdkOnlyMain} (copied alone to a class-path folder of its own), whose probe server on the
 * default transport answers {@code /livez} with 200; choosing {@code Transport.NETTY} there fails
 * with one line naming the artifact to add.
 */
class JdkTransportModulePathTest {
    @Test
    void theJdkTransportRunsOnAModulePathWithoutNetty(@TempDir Path dir) throws Exception {
        Path server = Path.of(System.getProperty("user.dir"), "target", "classes");
        Path core = location(HealthRegistry.class);
        Path jackson = location(JsonFactory.class);
        List<Path> modulePath = List.of(server, core, jackson);
        assertThat(modulePath).noneMatch(p -> p.getFileName().toString().contains("netty"));
        String main = JdkOnlyMain.class.getName().replace('.', '/') + ".class";
        Path copy = dir.resolve(main);
        Files.createDirectories(copy.getParent());
        Files.copy(location(JdkOnlyMain.class).resolve(main), copy);

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(java, "-XX:TieredStopAtLevel=1",
                "--module-path", modulePath.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator)),
                "--add-modules", "dev.vitals.server",
                "-cp", dir.toString(), JdkOnlyMain.class.getName()))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("child finished").isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out.lines()).as(out)
                .contains("module: dev.vitals.server", "netty module: absent", "transport: JDK", "livez: 200")
                .anyMatch(l -> l.startsWith("NETTY: probe server: Transport.NETTY needs io.netty:netty-transport"));
    }

    private static Path location(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
