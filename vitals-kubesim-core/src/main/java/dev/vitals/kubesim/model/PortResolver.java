package dev.vitals.kubesim.model;

import java.util.Map;
import java.util.Optional;

/**
 * The one place a probe's port is resolved against the container's ports, as the kubelet's
 * {@code ResolveContainerPort} does ({@code pkg/probe/util.go}, R56): a number is used as is;
 * a name is looked up among the container's port names and, when none matches, read as a
 * number ("maybe it was an int stored as string"); the result must be 1–65535. A port that
 * does not resolve makes the probe <em>error</em> on every tick, which the kubelet discards
 * (R22). Used by the prober at run time and by the manifest and flag validators up front.
 * Stateless and thread-safe.
 */
public final class PortResolver {
    private PortResolver() {
    }

    /** The outcome of resolving one port. */
    public sealed interface Resolution {
        /** @return the port number, if it resolved */
        Optional<Integer> port();
    }

    /** @param number the resolved port, 1–65535 */
    public record Resolved(int number) implements Resolution {
        @Override
        public Optional<Integer> port() {
            return Optional.of(number);
        }
    }

    /** @param error the kubelet's error text for it (R22: an errored tick) */
    public record Unresolved(String error) implements Resolution {
        @Override
        public Optional<Integer> port() {
            return Optional.empty();
        }
    }

    /**
     * @param ref the probe's port
     * @param ports the container's port names to numbers
     * @return the port, or why it does not resolve
     */
    public static Resolution resolve(ProbeHandler.PortRef ref, Map<String, Integer> ports) {
        int port;
        if (ref.isNamed()) {
            String name = ref.name().get();
            Integer p = ports.get(name);
            if (p != null) {
                port = p;
            } else if (name.matches("[+-]?\\d{1,10}")) { // strconv.Atoi fallback
                long v = Long.parseLong(name);
                port = v > Integer.MAX_VALUE || v < Integer.MIN_VALUE ? -1 : (int) v;
            } else {
                return new Unresolved("port " + name + " not found");
            }
        } else {
            port = ref.number();
        }
        if (port > 0 && port < 65536) {
            return new Resolved(port);
        }
        return new Unresolved("invalid port number: " + port);
    }

    /**
     * The R22 check of a validator: a port name that matches no container port and is no
     * number.
     *
     * @param handler the probe's handler
     * @param ports the container's port names to numbers
     * @return the unresolvable name, if there is one
     */
    public static Optional<String> unknownPortName(ProbeHandler handler, Map<String, Integer> ports) {
        return handler.portRef().filter(ProbeHandler.PortRef::isNamed)
                .filter(ref -> resolve(ref, ports) instanceof Unresolved)
                .flatMap(ProbeHandler.PortRef::name);
    }
}
