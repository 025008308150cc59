package dev.vitals.agent;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;
import java.net.MalformedURLException;
import java.net.URL;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;
import java.util.Collections;
import java.util.Enumeration;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The agent's entry point ({@code Premain-Class} and {@code Agent-Class}): the only Vitals class
 * the application's class loaders can see. It opens its own jar and loads the agent's
 * implementation, with Vitals core, the probe server (on the JDK transport) and relocated Jackson, from the
 * jar's {@code vitals-agent/*.classdata} entries in a class loader of its own whose parent is
 * the platform class loader: the implementation never sees the application's classes and the
 * application never sees it (DESIGN.md section 7d).
 *
 * <p>Usage: {@code java -javaagent:vitals-agent.jar[=key=value,...] -jar app.jar}; the options
 * are in {@code docs/agent.md}. A bad option prints one line naming it and stops the JVM with
 * exit code 2 before the application's {@code main} runs.
 */
public final class VitalsAgent {
    private static final String IMPL = "dev.vitals.agent.impl.AgentMain";
    private static volatile boolean started;

    private VitalsAgent() {
    }

    /**
     * Called by the JVM before the application's {@code main} ({@code -javaagent}).
     *
     * @param args the text after {@code =} in {@code -javaagent:vitals-agent.jar=...}, or null
     * @param inst the JVM's instrumentation: the agent counts the tasks of the application's thread
     *     pools with it (DESIGN.md section 7d, "Worker progress"), and its loaded classes tell the
     *     agent which framework it serves
     */
    public static void premain(String args, Instrumentation inst) {
        boot(args, inst);
    }

    /**
     * Called when the agent is attached to a running JVM; starts the same way as {@link #premain}.
     *
     * @param args agent options, or null
     * @param inst the JVM's instrumentation
     */
    public static void agentmain(String args, Instrumentation inst) {
        boot(args, inst);
    }

    private static synchronized void boot(String args, Instrumentation inst) {
        if (started) {
            System.err.println("vitals-agent: already started in this JVM; ignoring the second -javaagent");
            return;
        }
        started = true;
        ClassLoader loader;
        try {
            CodeSource source = VitalsAgent.class.getProtectionDomain().getCodeSource();
            URL location = source.getLocation();
            File file = new File(location.toURI());
            loader = new Loader(new JarFile(file, false), file.toURI().toURL(),
                    new ProtectionDomain(new CodeSource(location, (Certificate[]) null), null));
        } catch (Exception | LinkageError e) {
            fail("cannot open the agent jar: " + e);
            return;
        }
        try {
            Class<?> main = Class.forName(IMPL, true, loader);
            main.getMethod("start", String.class, Instrumentation.class).invoke(null, args == null ? "" : args, inst);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            fail("cannot start: " + (cause.getMessage() != null ? cause.getMessage() : cause.toString()));
        } catch (ReflectiveOperationException | LinkageError e) {
            fail("the agent jar is damaged: " + e);
        }
    }

    private static void fail(String line) {
        System.err.println("vitals-agent: " + line);
        System.err.flush();
        Runtime.getRuntime().halt(1);
    }

    /**
     * Loads {@code a.b.C} from the entry {@code vitals-agent/a/b/C.classdata} and resource
     * {@code x/y} from {@code vitals-agent/x/y} (the resource {@code a/b/C.class} is the class's
     * bytes, as Byte Buddy reads its advice), parent first (the platform class loader, so JDK
     * modules only). Parallel capable; the jar stays open for the JVM's lifetime.
     */
    static final class Loader extends ClassLoader {
        static {
            ClassLoader.registerAsParallelCapable();
        }

        private static final String PREFIX = "vitals-agent/";
        private final JarFile jar;
        private final String jarUrl;
        private final ProtectionDomain domain;

        Loader(JarFile jar, URL jarUrl, ProtectionDomain domain) {
            super("vitals-agent", ClassLoader.getPlatformClassLoader());
            this.jar = jar;
            this.jarUrl = jarUrl.toExternalForm();
            this.domain = domain;
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            JarEntry entry = jar.getJarEntry(PREFIX + name.replace('.', '/') + ".classdata");
            if (entry == null) {
                throw new ClassNotFoundException(name);
            }
            byte[] bytes;
            try (InputStream in = jar.getInputStream(entry)) {
                long size = entry.getSize();
                if (size >= 0 && size < Integer.MAX_VALUE) {
                    bytes = in.readNBytes((int) size); // one array of the exact size: start-up garbage is RSS
                } else {
                    ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
                    in.transferTo(out);
                    bytes = out.toByteArray();
                }
            } catch (IOException e) {
                throw new ClassNotFoundException(name, e);
            }
            int dot = name.lastIndexOf('.');
            if (dot > 0) {
                String pkg = name.substring(0, dot);
                if (getDefinedPackage(pkg) == null) {
                    try {
                        definePackage(pkg, null, null, null, null, null, null, null);
                    } catch (IllegalArgumentException raced) {
                        // defined by another thread meanwhile
                    }
                }
            }
            return defineClass(name, bytes, 0, bytes.length, domain);
        }

        @Override
        protected URL findResource(String name) {
            String entry = PREFIX + name;
            if (jar.getJarEntry(entry) == null) {
                entry = name.endsWith(".class") ? entry + "data" : null;
                if (entry == null || jar.getJarEntry(entry) == null) {
                    return null;
                }
            }
            try {
                return new URL("jar:" + jarUrl + "!/" + entry);
            } catch (MalformedURLException e) {
                return null;
            }
        }

        @Override
        protected Enumeration<URL> findResources(String name) {
            URL url = findResource(name);
            return url == null ? Collections.emptyEnumeration() : Collections.enumeration(Collections.singletonList(url));
        }
    }
}
