package dev.vitals.kubesim.lint;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * L23: a resource quantity the API server refuses ({@code cpu: cpu-limit}, {@code memory: 1 GB}).
 * The grammar is apimachinery's {@code resource.Quantity} (k8s.io/apimachinery/pkg/api/resource/quantity.go):
 * a signed decimal number, then a binary suffix (Ki Mi Gi Ti Pi Ei), a decimal suffix (n u m k M G
 * T P E) or a decimal exponent ({@code e3}, {@code E-2}). A number written unquoted in YAML is a
 * quantity too.
 */
final class QuantityRule extends BaseRule {
    /** quantity.go: {@code <signedNumber><suffix>}, suffix binary, decimal SI or exponent. */
    static final Pattern QUANTITY = Pattern.compile("[+-]?(\\d+(\\.\\d*)?|\\.\\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\\d+)?");

    QuantityRule() {
        super("L23", "invalid-quantity", Severity.ERROR,
                "a resources quantity the API server refuses (cpu: cpu-limit): the object is rejected",
                "a value under resources.limits or resources.requests does not match resource.Quantity's grammar",
                Needs.MANIFEST);
    }

    /** @return true when the API server parses {@code text} as a quantity */
    static boolean valid(JsonNode v) {
        return v.isNumber() || v.isTextual() && QUANTITY.matcher(v.asText()).matches();
    }

    @Override
    public void check(Target t, LintContext ctx, Consumer<Finding> out) {
        for (String kind : new String[] {"limits", "requests"}) {
            Iterator<Map.Entry<String, JsonNode>> it = t.container().path("resources").path(kind).fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                if (valid(e.getValue())) {
                    continue;
                }
                String dotted = "resources." + kind + "." + e.getKey();
                out.accept(t.finding(this, dotted, dotted + " is '" + e.getValue().asText() + "', not a quantity: the API server"
                        + " rejects the object (quantities are a number with an optional suffix: 500m, 2, 512Mi, 1Gi, 1e3)",
                        "resource.Quantity", "write a quantity, e.g. " + (e.getKey().equals("cpu") ? "cpu: 500m or cpu: \"1\""
                                : "memory: 512Mi") + (e.getValue().asText().contains("-") ? " (a Helm value left unrendered?)" : "")));
            }
        }
    }
}
