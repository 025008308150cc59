package dev.vitals.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The JDK transport's promise (DESIGN.md 6a): loading and running the probe server with
 * {@code Transport.JDK} loads no Netty class, so the Java agent can leave Netty out. A child JVM
 * runs {@link NoNettyTarget} with every Netty jar left off its class path (a Netty class touched
 * would fail it) and {@code -Xlog:class+load} on (a Netty class loaded would be listed).
 */
class JdkTransportLoadsNoNettyTest {
    @Test
    void theJdkTransportRunsWithoutNettyAndLoadsNoNettyClass() throws Exception {
        Set<String> cp = new LinkedHashSet<>();
        cp.add(Path.of(System.getProperty("user.dir"), "target", "test-classes").toString());
        List<String> leftOut = new ArrayList<>();
        for (String p : new String[] {System.getProperty("jdk.module.path", ""), System.getProperty("java.class.path", "")}) {
            for (String e : p.split(File.pathSeparator)) {
                if (e.isBlank()) {
                    continue;
                }
                if (Path.of(e).getFileName().toString().startsWith("netty-")) {
                    leftOut.add(e);
                } else {
                    cp.add(e);
                }
            }
        }
        assertThat(leftOut).as("Netty jars left off the child's class path").isNotEmpty();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(java, "-Xlog:class+load=info", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "-cp", String.join(File.pathSeparator, cp), NoNettyTarget.class.getName()))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("child finished").isTrue();
        List<String> lines = out.lines().collect(Collectors.toList());
        assertThat(lines).as("the child's answers").contains("answers: 200 503 200 200 400");
        assertThat(p.exitValue()).as(out.length() > 4000 ? out.substring(out.length() - 4000) : out).isZero();
        assertThat(lines).as("classes loaded").anyMatch(l -> l.contains("dev.vitals.server.NioTransport "))
                .anyMatch(l -> l.contains("dev.vitals.server.ProbeConnection "))
                .noneMatch(l -> l.contains("io.netty"))
                .noneMatch(l -> l.contains("dev.vitals.server.NettyTransport"));
    }
}
