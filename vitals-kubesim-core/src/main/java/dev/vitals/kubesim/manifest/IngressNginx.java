package dev.vitals.kubesim.manifest;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The ingress-nginx annotations the simulator reads ({@code nginx.ingress.kubernetes.io/*}), one
 * table for the fleet model and lint: an annotation of that prefix not in {@link #MODELLED} changes
 * what ingress-nginx does (timeouts, retries, cookie options, canaries...) without changing the
 * model, so it is named in a notice (fleet) or an info finding (lint, I1) rather than silently
 * left out. Stateless.
 */
public final class IngressNginx {
    /** The annotation prefix of ingress-nginx. */
    public static final String PREFIX = "nginx.ingress.kubernetes.io/";
    /** The annotations read, without the prefix: the balancing algorithm and the two kinds of stickiness. */
    public static final List<String> MODELLED = List.of("load-balance", "affinity", "upstream-hash-by");

    private IngressNginx() {
    }

    /**
     * @param annotations an Ingress's {@code metadata.annotations} (a missing node gives none)
     * @return its {@code nginx.ingress.kubernetes.io/*} annotations not in {@link #MODELLED}, full names, in the
     *         document's order
     */
    public static List<String> unmodelled(JsonNode annotations) {
        Objects.requireNonNull(annotations, "annotations");
        List<String> out = new ArrayList<>();
        annotations.fieldNames().forEachRemaining(n -> {
            if (n.startsWith(PREFIX) && !MODELLED.contains(n.substring(PREFIX.length()))) {
                out.add(n);
            }
        });
        return out;
    }

    /** @return why it is named: "not modelled (the simulator reads load-balance, affinity, upstream-hash-by only)" */
    public static String why() {
        return "not modelled (the simulator reads " + String.join(", ", MODELLED) + " only): its effect is left out";
    }
}
