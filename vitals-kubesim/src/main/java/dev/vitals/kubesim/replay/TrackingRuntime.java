package dev.vitals.kubesim.replay;

import dev.vitals.kubesim.model.ContainerRuntime;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

/**
 * A {@link ContainerRuntime} that remembers the instance it started last, so the replay can
 * pause and resume it (the simulator's SIGSTOP / SIGCONT), and every live instance, so a
 * Ctrl-C of the replay can kill what it started. Thread-safe.
 */
final class TrackingRuntime implements ContainerRuntime {
    private static final Set<Instance> LIVE = ConcurrentHashMap.newKeySet();
    private final ContainerRuntime delegate;
    private final AtomicReference<Instance> current = new AtomicReference<>();

    TrackingRuntime(ContainerRuntime delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public Instance start(int instance, IntConsumer onExit) {
        Instance[] started = new Instance[1];
        Instance i = delegate.start(instance, code -> {
            if (started[0] != null) {
                LIVE.remove(started[0]);
            }
            onExit.accept(code);
        });
        started[0] = i;
        LIVE.add(i);
        current.set(i);
        return i;
    }

    /** @return the instance started last, if any */
    Optional<Instance> current() {
        return Optional.ofNullable(current.get());
    }

    /** SIGKILLs every instance still running (for a shutdown hook). */
    static void killAll() {
        for (Instance i : LIVE) {
            try {
                i.resume();
            } catch (RuntimeException ignored) {
                // it may be gone already
            }
            try {
                i.kill();
            } catch (RuntimeException ignored) {
                // best effort
            }
        }
        LIVE.clear();
    }
}
