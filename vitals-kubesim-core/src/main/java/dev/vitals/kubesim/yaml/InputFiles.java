package dev.vitals.kubesim.yaml;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads an input file named on the command line (manifest, scenario, fleet spec, lint input)
 * within limits (issue 30), so that no path makes the tool hang or run out of memory:
 * <ul>
 *   <li>a directory, a block device or a socket is refused at once: "is a device, not a file";</li>
 *   <li>a character device is read as a pipe is (below): {@code /dev/null} is an empty input,
 *       {@code /dev/urandom} and {@code /dev/zero} end at the size limit;</li>
 *   <li>a regular file larger than {@link #MAX_BYTES} (64 MiB) is refused before reading;</li>
 *   <li>a pipe or FIFO ({@code <(helm template …)}, {@code mkfifo}) is read up to
 *       {@link #MAX_BYTES} and must reach its end within {@link #pipeTimeoutSeconds()} (30 s unless the
 *       system property {@value #PIPE_TIMEOUT_PROPERTY} says otherwise): a FIFO nobody writes to is an
 *       error, not a hang.</li>
 * </ul>
 * Problems are {@link IOException}s with a one-line message; callers turn them into exit code 2.
 */
public final class InputFiles {
    /** Largest input read: 64 MiB (the largest real manifests are a few MiB). */
    public static final long MAX_BYTES = 64L << 20;
    /** Default longest wait for a pipe or FIFO to deliver its whole text, seconds. */
    public static final long PIPE_TIMEOUT_SECONDS = 30;
    /**
     * System property overriding {@link #PIPE_TIMEOUT_SECONDS}: whole seconds, 1-3600 (other values
     * are ignored); e.g. {@code JAVA_TOOL_OPTIONS=-Dvitals.input.pipeTimeoutSeconds=120} for a slow
     * {@code helm template}, or a short wait in tests.
     */
    public static final String PIPE_TIMEOUT_PROPERTY = "vitals.input.pipeTimeoutSeconds";
    private static final int S_IFMT = 0170000;
    private static final int S_IFIFO = 0010000;
    private static final int S_IFREG = 0100000;
    private static final int S_IFDIR = 0040000;
    private static final int S_IFCHR = 0020000;

    private InputFiles() {
    }

    /**
     * @param file the input
     * @return its text, UTF-8
     * @throws IOException when it cannot be read, is not a file, is too large or a pipe stalls
     */
    public static String readText(Path file) throws IOException {
        int type = type(file);
        if (type == S_IFDIR) {
            throw new IOException("is a directory, not a file");
        }
        if (type == S_IFREG || type == -1) {
            long size = Files.size(file);
            if (size > MAX_BYTES) {
                throw new IOException("is " + (size >> 20) + " MiB; inputs are limited to " + (MAX_BYTES >> 20) + " MiB");
            }
            return Files.readString(file, StandardCharsets.UTF_8);
        }
        if (type != S_IFIFO && type != S_IFCHR) {
            throw new IOException("is a device, not a file (give a manifest file, or '-' for standard input where accepted)");
        }
        CompletableFuture<byte[]> read = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try (InputStream in = Files.newInputStream(file)) { // opening a FIFO blocks until a writer comes
                ByteArrayOutputStream buf = new ByteArrayOutputStream();
                byte[] chunk = new byte[64 * 1024];
                for (int n; (n = in.read(chunk)) >= 0; ) {
                    buf.write(chunk, 0, n);
                    if (buf.size() > MAX_BYTES) {
                        throw new IOException("holds more than " + (MAX_BYTES >> 20) + " MiB; inputs are limited to that");
                    }
                }
                read.complete(buf.toByteArray());
            } catch (IOException | RuntimeException e) {
                read.completeExceptionally(e);
            }
        }, "vitals-input-" + file.getFileName());
        t.setDaemon(true);
        t.start();
        long timeout = pipeTimeoutSeconds();
        try {
            return new String(read.get(timeout, TimeUnit.SECONDS), StandardCharsets.UTF_8);
        } catch (TimeoutException e) {
            t.interrupt();
            throw new IOException("is a pipe that did not deliver its whole text within " + timeout
                    + " s (a FIFO nobody writes to?)");
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            throw c instanceof IOException ? (IOException) c : new IOException(String.valueOf(c.getMessage()), c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading");
        }
    }

    /**
     * @return the wait for a pipe or FIFO, seconds: {@value #PIPE_TIMEOUT_PROPERTY} when it is a
     *         whole number 1-3600, else {@link #PIPE_TIMEOUT_SECONDS}
     */
    public static long pipeTimeoutSeconds() {
        String v = System.getProperty(PIPE_TIMEOUT_PROPERTY);
        if (v != null) {
            try {
                long s = Long.parseLong(v.strip());
                if (s >= 1 && s <= 3600) {
                    return s;
                }
            } catch (NumberFormatException e) {
                // not a number: the default
            }
        }
        return PIPE_TIMEOUT_SECONDS;
    }

    /** @return the file type bits of {@code unix:mode}, or -1 when the platform has no unix view */
    private static int type(Path file) throws IOException {
        try {
            Object mode = Files.getAttribute(file, "unix:mode", new LinkOption[0]);
            return ((Integer) mode) & S_IFMT;
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            return Files.isRegularFile(file) ? S_IFREG : Files.isDirectory(file) ? S_IFDIR : -1;
        }
    }
}
