package dev.vitals.bench.suite;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * Formats the suite's rows as a fixed-width text table (for the terminal and docs/benchmarks.md) and as
 * JSON (for tools and regression tracking). Stateless; thread-safe.
 *
 * <p>Figures are printed with three significant digits at most below 100 and as whole numbers
 * above; a missing figure prints as {@code -}; the ratio is Vitals ÷ reference.
 */
public final class ResultTable {
    static final String[] HEADER = {"scenario", "metric", "vitals", "reference", "ref value", "ratio", "goal", "met"};
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ResultTable() {
    }

    /**
     * @param rows the rows, in order
     * @return a table with one header line, one rule line and one line per row, each ending in {@code \n}
     */
    public static String text(List<Row> rows) {
        List<String[]> cells = new ArrayList<>();
        cells.add(HEADER);
        cells.addAll(cells(rows));
        int[] width = new int[HEADER.length];
        for (String[] line : cells) {
            for (int i = 0; i < line.length; i++) {
                width[i] = Math.max(width[i], line[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (int n = 0; n < cells.size(); n++) {
            appendLine(sb, cells.get(n), width);
            if (n == 0) {
                String[] rule = new String[HEADER.length];
                for (int i = 0; i < rule.length; i++) {
                    rule[i] = "-".repeat(Math.max(3, width[i]));
                }
                appendLine(sb, rule, width);
            }
        }
        return sb.toString();
    }

    /**
     * @param rows the rows, in order
     * @return a Markdown table (for docs/benchmarks.md): the same columns as {@link #text}, {@code |} in
     *     cells escaped
     */
    public static String markdown(List<Row> rows) {
        StringBuilder sb = new StringBuilder("| ").append(String.join(" | ", HEADER)).append(" |\n|");
        sb.append("---|".repeat(HEADER.length)).append('\n');
        for (String[] line : cells(rows)) {
            sb.append('|');
            for (String cell : line) {
                sb.append(' ').append(cell.replace("|", "\\|")).append(" |");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static List<String[]> cells(List<Row> rows) {
        List<String[]> cells = new ArrayList<>();
        for (Row r : rows) {
            cells.add(new String[] {r.scenario(), r.metric(), withUnit(r.vitals(), r.unit()), r.reference(),
                    withUnit(r.refValue(), r.unit()), r.ratio().isPresent() ? format(r.ratio().getAsDouble()) : "-",
                    r.goal().isEmpty() ? "-" : r.goal(),
                    r.goalMet().map(m -> m ? "yes" : "NO").orElse("-") + (r.note().isEmpty() ? "" : " (" + r.note() + ")")});
        }
        return cells;
    }

    private static void appendLine(StringBuilder sb, String[] line, int[] width) {
        StringBuilder l = new StringBuilder("|");
        for (int i = 0; i < line.length; i++) {
            l.append(' ').append(line[i]).append(" ".repeat(width[i] - line[i].length())).append(" |");
        }
        sb.append(l).append('\n');
    }

    private static String withUnit(OptionalDouble v, String unit) {
        if (v.isEmpty()) {
            return "-";
        }
        return unit.isEmpty() ? format(v.getAsDouble()) : format(v.getAsDouble()) + " " + unit;
    }

    /**
     * @param v a finite number
     * @return {@code v} with at most three significant digits when {@code |v| < 100}, else rounded
     *     to a whole number; no exponent, no trailing zeros
     */
    static String format(double v) {
        if (!Double.isFinite(v)) {
            throw new IllegalArgumentException("not a finite number: " + v);
        }
        if (Math.abs(v) >= 100) {
            return String.format(Locale.ROOT, "%d", Math.round(v));
        }
        if (v == 0) {
            return "0";
        }
        BigDecimal d = new BigDecimal(v).round(new java.math.MathContext(3, RoundingMode.HALF_EVEN)).stripTrailingZeros();
        return d.toPlainString();
    }

    /**
     * @param meta  run metadata (date, JDK, cores, load averages, mode), written as the object {@code run}
     * @param rows  the rows
     * @return {@code {"run":{...},"rows":[{"scenario":..,"metric":..,"unit":..,"vitals":..,"reference":..,
     *     "referenceValue":..,"ratio":..,"delta":..,"goal":..,"goalMet":..,"note":..}]}}; missing figures are
     *     {@code null}, an absent goal is {@code null}
     */
    public static String json(Map<String, ?> meta, List<Row> rows) {
        ObjectNode root = JSON.createObjectNode();
        root.set("run", JSON.valueToTree(meta));
        ArrayNode array = root.putArray("rows");
        for (Row r : rows) {
            ObjectNode o = array.addObject();
            o.put("scenario", r.scenario());
            o.put("metric", r.metric());
            o.put("unit", r.unit());
            putNumber(o, "vitals", r.vitals());
            o.put("reference", r.reference());
            putNumber(o, "referenceValue", r.refValue());
            putNumber(o, "ratio", r.ratio());
            putNumber(o, "delta", r.delta());
            if (r.goal().isEmpty()) {
                o.putNull("goal");
            } else {
                o.put("goal", r.goal());
            }
            if (r.goalMet().isPresent()) {
                o.put("goalMet", r.goalMet().get());
            } else {
                o.putNull("goalMet");
            }
            o.put("note", r.note());
        }
        try {
            return JSON.writeValueAsString(root) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot write the results as JSON", e);
        }
    }

    private static void putNumber(ObjectNode o, String name, OptionalDouble v) {
        if (v.isPresent()) {
            o.put(name, BigDecimal.valueOf(v.getAsDouble()).setScale(4, RoundingMode.HALF_EVEN).stripTrailingZeros());
        } else {
            o.putNull(name);
        }
    }
}
