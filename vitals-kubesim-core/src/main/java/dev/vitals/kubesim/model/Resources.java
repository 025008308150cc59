package dev.vitals.kubesim.model;

import dev.vitals.kubesim.input.InvalidInputException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A container's {@code resources}: the CPU and memory the container runtime enforces. CPU in
 * millicores, memory in bytes, each empty when not written. As the API server defaults it, a
 * CPU limit without a request makes the request equal to the limit (same for memory). Immutable.
 *
 * <p>What the kubelet and container runtime make of it (kubelet: pkg/kubelet/cm/helpers_linux.go
 * MilliCPUToQuota, MilliCPUToShares; opencontainers/cgroups ConvertCPUSharesToCgroupV2Value):
 * {@link #cfsQuotaMicros()}, {@link #cpuShares()}, {@link #cpuWeight()}.
 *
 * @param cpuLimitMillis {@code limits.cpu} in millicores
 * @param cpuRequestMillis {@code requests.cpu} in millicores
 * @param memoryLimitBytes {@code limits.memory} in bytes
 */
public record Resources(OptionalLong cpuLimitMillis, OptionalLong cpuRequestMillis, OptionalLong memoryLimitBytes) {
    /** The CFS period the kubelet uses (kubelet: cm.QuotaPeriod, 100 ms). */
    public static final long CFS_PERIOD_MICROS = 100_000;
    /** Smallest quota the kubelet sets (kubelet: cm.MinQuotaPeriod, 1 ms). */
    static final long MIN_QUOTA_MICROS = 1_000;
    static final long MIN_SHARES = 2;
    static final long MAX_SHARES = 262_144;

    private static final Pattern QUANTITY = Pattern.compile("([+]?[0-9]+(?:\\.[0-9]*)?|[+]?\\.[0-9]+)"
            + "(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?[0-9]+)?");

    /** No resources written. */
    public static final Resources NONE = new Resources(OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty());

    /**
     * Validates the components.
     *
     * @param cpuLimitMillis {@code limits.cpu} in millicores
     * @param cpuRequestMillis {@code requests.cpu} in millicores
     * @param memoryLimitBytes {@code limits.memory} in bytes
     * @throws NullPointerException if a required component is null
     */
    public Resources {
        java.util.Objects.requireNonNull(cpuLimitMillis, "cpuLimitMillis");
        java.util.Objects.requireNonNull(memoryLimitBytes, "memoryLimitBytes");
        if (cpuRequestMillis.isEmpty() && cpuLimitMillis.isPresent()) {
            cpuRequestMillis = cpuLimitMillis; // API defaulting: requests default to limits
        }
    }

    /** @return true when nothing is set */
    public boolean isEmpty() {
        return cpuLimitMillis.isEmpty() && cpuRequestMillis.isEmpty() && memoryLimitBytes.isEmpty();
    }

    /**
     * @param cpuLimit {@code --cpu-limit} or null
     * @param cpuRequest {@code --cpu-request} or null
     * @param memoryLimit {@code --memory-limit} or null
     * @return these values over this one's (a null keeps this one's)
     * @throws InvalidInputException when a value is not a Kubernetes quantity
     */
    public Resources override(String cpuLimit, String cpuRequest, String memoryLimit) {
        OptionalLong cl = cpuLimit == null ? cpuLimitMillis : OptionalLong.of(cpuMillis("--cpu-limit", cpuLimit));
        OptionalLong cr = cpuRequest == null ? (cpuLimit == null ? cpuRequestMillis : OptionalLong.empty())
                : OptionalLong.of(cpuMillis("--cpu-request", cpuRequest));
        OptionalLong ml = memoryLimit == null ? memoryLimitBytes : OptionalLong.of(bytes("--memory-limit", memoryLimit));
        return new Resources(cl, cr, ml);
    }

    /**
     * @param what the field, for the message
     * @param text a quantity, e.g. {@code 500m}, {@code 0.5}, {@code 2}
     * @return millicores, rounded up as {@code Quantity.MilliValue()} does
     * @throws InvalidInputException when not a quantity or not positive
     */
    public static long cpuMillis(String what, String text) {
        BigDecimal v = parse(what, text);
        long m = exact(what, text, v.movePointRight(3));
        if (m <= 0) {
            throw new InvalidInputException(what + " must be more than 0, was '" + text + "'");
        }
        return m;
    }

    /**
     * @param what the field, for the message
     * @param text a quantity, e.g. {@code 512Mi}, {@code 1G}, {@code 268435456}
     * @return bytes, rounded up
     * @throws InvalidInputException when not a quantity or not positive
     */
    public static long bytes(String what, String text) {
        BigDecimal v = parse(what, text);
        long b = exact(what, text, v);
        if (b <= 0) {
            throw new InvalidInputException(what + " must be more than 0, was '" + text + "'");
        }
        return b;
    }

    /** @return {@code v} rounded up to a long; a value past a long (1e999, 99999999999999999999Ei) is bad input */
    private static long exact(String what, String text, BigDecimal v) {
        try {
            return v.setScale(0, RoundingMode.CEILING).longValueExact();
        } catch (ArithmeticException e) {
            throw new InvalidInputException(what + ": '" + text + "' is out of range");
        }
    }

    private static BigDecimal parse(String what, String text) {
        Matcher m = QUANTITY.matcher(text == null ? "" : text.trim());
        if (!m.matches()) {
            throw new InvalidInputException(what + ": '" + text + "' is not a Kubernetes quantity (e.g. 500m, 0.5, 512Mi, 1G)");
        }
        BigDecimal n = new BigDecimal(m.group(1).replace("+", ""));
        String s = m.group(2) == null ? "" : m.group(2);
        try {
            switch (s) {
                case "": return n;
                case "m": return n.movePointLeft(3);
                case "k": return n.movePointRight(3);
                case "M": return n.movePointRight(6);
                case "G": return n.movePointRight(9);
                case "T": return n.movePointRight(12);
                case "P": return n.movePointRight(15);
                case "E": return n.movePointRight(18);
                case "Ki": return n.multiply(BigDecimal.valueOf(1L << 10));
                case "Mi": return n.multiply(BigDecimal.valueOf(1L << 20));
                case "Gi": return n.multiply(BigDecimal.valueOf(1L << 30));
                case "Ti": return n.multiply(BigDecimal.valueOf(1L << 40));
                case "Pi": return n.multiply(BigDecimal.valueOf(1L << 50));
                case "Ei": return n.multiply(BigDecimal.valueOf(1L << 60));
                default: return n.scaleByPowerOfTen(Integer.parseInt(s.substring(1)));
            }
        } catch (NumberFormatException | ArithmeticException e) {
            throw new InvalidInputException(what + ": '" + text + "' is out of range");
        }
    }

    /** @return the CFS quota per {@link #CFS_PERIOD_MICROS} (kubelet: MilliCPUToQuota), empty without a CPU limit */
    public OptionalLong cfsQuotaMicros() {
        if (cpuLimitMillis.isEmpty()) {
            return OptionalLong.empty();
        }
        long q = cpuLimitMillis.getAsLong() * CFS_PERIOD_MICROS / 1000;
        return OptionalLong.of(Math.max(q, MIN_QUOTA_MICROS));
    }

    /** @return cgroup v1 {@code cpu.shares} (kubelet: MilliCPUToShares; 2 without a request) */
    public long cpuShares() {
        if (cpuRequestMillis.isEmpty() || cpuRequestMillis.getAsLong() == 0) {
            return MIN_SHARES;
        }
        long s = cpuRequestMillis.getAsLong() * 1024 / 1000;
        return Math.min(MAX_SHARES, Math.max(MIN_SHARES, s));
    }

    /**
     * @return cgroup v2 {@code cpu.weight} for {@link #cpuShares()}: the quadratic mapping of
     *         opencontainers/cgroups ConvertCPUSharesToCgroupV2Value (2 → 1, 1024 → 100, 262144 → 10000),
     *         which the runtimes the kubelet drives (runc ≥ 1.3.2, crun ≥ 1.23) apply
     */
    public long cpuWeight() {
        return cpuWeight(cpuShares());
    }

    static long cpuWeight(long shares) {
        if (shares <= 2) {
            return 1;
        }
        if (shares >= MAX_SHARES) {
            return 10_000;
        }
        double l = Math.log(shares) / Math.log(2);
        double exponent = (l * l + 125 * l) / 612.0 - 7.0 / 34.0;
        return (long) Math.ceil(Math.pow(10, exponent));
    }

    /** @return e.g. {@code cpu 500m (request 250m), memory 512Mi}, or {@code none} */
    public String describe() {
        List<String> out = new ArrayList<>();
        if (cpuLimitMillis.isPresent()) {
            out.add("cpu limit " + cpu(cpuLimitMillis.getAsLong())
                    + (cpuRequestMillis.equals(cpuLimitMillis) ? "" : " (request " + cpu(cpuRequestMillis.getAsLong()) + ")"));
        } else if (cpuRequestMillis.isPresent()) {
            out.add("cpu request " + cpu(cpuRequestMillis.getAsLong()) + " (no limit)");
        }
        memoryLimitBytes.ifPresent(b -> out.add("memory limit " + memory(b)));
        return out.isEmpty() ? "none" : String.join(", ", out);
    }

    /**
     * Formats a CPU quantity.
     *
     * @param millis millicores, ≥ 0
     * @return millicores as Kubernetes writes them, e.g. {@code 500m}, {@code 2}
     */
    public static String cpu(long millis) {
        return millis % 1000 == 0 ? Long.toString(millis / 1000) : millis + "m";
    }

    /**
     * Formats a memory quantity.
     *
     * @param bytes bytes, ≥ 0
     * @return bytes in the largest binary unit that divides them, e.g. {@code 512Mi}
     */
    public static String memory(long bytes) {
        String[] units = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
        for (int i = 0; i < units.length; i++) {
            long unit = 1L << (10 * (6 - i));
            if (bytes % unit == 0) {
                return (bytes / unit) + units[i];
            }
        }
        return bytes >= 1 << 20 ? String.format(Locale.ROOT, "%.1fMi", bytes / (double) (1 << 20)) : Long.toString(bytes);
    }
}
