package dev.vitals.agent.impl;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import net.bytebuddy.agent.ByteBuddyAgent;
import org.junit.jupiter.api.Test;

/**
 * When the pools' transformer is registered (issue 37): not while the application starts (a
 * registered transformer costs every class loaded a call into Java with a copy of its bytes),
 * only for the retransformation of the targets a scan finds; for good once settled. A recording
 * transformer in place of the real one shows which class loads reach it.
 */
class InstrumenterTest {
    /** Records the internal name of every class it is called for; changes nothing. */
    static final class Recorder implements ClassFileTransformer {
        final List<String> seen = new CopyOnWriteArrayList<>();

        @Override
        public byte[] transform(Module module, ClassLoader loader, String className, Class<?> redefined,
                                ProtectionDomain domain, byte[] bytes) {
            seen.add(String.valueOf(className));
            return null;
        }
    }

    /** A tiny class of its own, defined anew by each loader: a class load the transformer may see. */
    public static final class Probe {
    }

    private static final class OneClassLoader extends ClassLoader {
        OneClassLoader() {
            super(null);
        }

        Class<?> defineProbe() throws IOException {
            String entry = Probe.class.getName().replace('.', '/') + ".class";
            try (InputStream in = InstrumenterTest.class.getClassLoader().getResourceAsStream(entry)) {
                byte[] b = in.readAllBytes();
                return defineClass(Probe.class.getName(), b, 0, b.length);
            }
        }
    }

    private static final String PROBE = Probe.class.getName().replace('.', '/');
    private static final String TPE = "java/util/concurrent/ThreadPoolExecutor";

    @Test
    void noTransformerWhileStartingOnlyForTheScansRetransformationThenForGood() throws Exception {
        Instrumentation inst = ByteBuddyAgent.install();
        TestInstrumentation.install(); // the real instrumentation stays in place for the other tests
        Recorder recorder = new Recorder();
        ExecutorInstrumentation.Instrumenter x = new ExecutorInstrumentation.Instrumenter(inst, recorder);
        try {
            new OneClassLoader().defineProbe();
            assertThat(recorder.seen).as("nothing registered before a scan").isEmpty();

            assertThat(x.scan()).as("the JDK's pools, loaded already").isGreaterThanOrEqualTo(1);
            assertThat(recorder.seen).contains(TPE).doesNotContain(PROBE);
            recorder.seen.clear();
            new OneClassLoader().defineProbe();
            assertThat(recorder.seen).as("removed after the scan's retransformation").isEmpty();
            assertThat(x.scan()).as("a target is retransformed once while starting").isZero();
            assertThat(recorder.seen).isEmpty();

            x.settle();
            assertThat(x.settled()).isTrue();
            assertThat(recorder.seen).as("every target again when settling").contains(TPE);
            recorder.seen.clear();
            new OneClassLoader().defineProbe();
            assertThat(recorder.seen).as("registered for good once settled").containsExactly(PROBE);
            assertThat(x.scan()).as("no scan once settled").isZero();
        } finally {
            inst.removeTransformer(recorder);
        }
    }
}
