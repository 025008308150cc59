package dev.vitals.kubesim.lint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.FilterReader;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;
import org.snakeyaml.engine.v2.schema.CoreSchema;

/**
 * Streams the documents of a YAML (or JSON) text one at a time, as Jackson trees with the line
 * of every mapping key kept aside, the way the API server's strict decoding sees them: a key
 * written twice in one mapping is reported with both lines (kubectl: "duplicate field").
 * Only one document is held in memory at a time, so a stream of tens of megabytes costs the
 * largest document, not the stream. No document size limit below 2^31 code points.
 * Not thread-safe; one instance per input.
 */
final class YamlDocs {
    /** Node budget per document: aliases are shared in YAML but copied here (billion laughs). */
    static final int MAX_NODES = 5_000_000;
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    /** One parsed document: its tree, where its keys are, and duplicate keys found. */
    static final class Doc {
        final int index;
        final int line;
        final JsonNode root;
        final Locations locations;
        final java.util.List<DuplicateKey> duplicates;

        Doc(int index, int line, JsonNode root, Locations locations, java.util.List<DuplicateKey> duplicates) {
            this.index = index;
            this.line = line;
            this.root = root;
            this.locations = locations;
            this.duplicates = duplicates;
        }
    }

    /** A key written twice in one mapping (1-based lines). */
    record DuplicateKey(String key, int firstLine, int secondLine) {
    }

    /** Bad input in a stream: one line for a person, with the line where it was found (1-based, 0 unknown). */
    static final class YamlInputException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int line;

        YamlInputException(String message, int line) {
            super(message, null, false, false);
            this.line = line;
        }
    }

    private final TemplateSniffer reader;
    private final Iterator<Node> nodes;
    private int index;

    YamlDocs(Reader in, String label) {
        this.reader = new TemplateSniffer(in);
        LoadSettings settings = LoadSettings.builder().setLabel(label).setSchema(new CoreSchema())
                .setCodePointLimit(Integer.MAX_VALUE).setAllowDuplicateKeys(true).setUseMarks(true)
                .setBufferSize(64 * 1024).build();
        this.nodes = new Compose(settings).composeAllFromReader(reader).iterator();
    }

    /**
     * @return the next non-empty document, or empty at the end of the stream
     * @throws YamlInputException when the text is not YAML (or is a Go template)
     * @throws UncheckedIOException when reading fails
     */
    Optional<Doc> next() {
        while (true) {
            Node n;
            try {
                if (!nodes.hasNext()) {
                    return Optional.empty();
                }
                n = nodes.next();
            } catch (MarkedYamlEngineException e) {
                int line = e.getProblemMark().or(e::getContextMark).map(m -> m.getLine() + 1).orElse(0);
                throw templateOr(new YamlInputException("not valid YAML: " + oneLine(e.getProblem() == null
                        ? e.getMessage() : e.getProblem()) + contextText(e), line));
            } catch (YamlEngineException e) {
                Throwable c = e.getCause();
                if (c instanceof IOException) {
                    throw new UncheckedIOException((IOException) c);
                }
                throw templateOr(new YamlInputException("not valid YAML: " + oneLine(e.getMessage()), 0));
            }
            index++;
            if (n == null) {
                continue;
            }
            if (n instanceof ScalarNode && Tag.NULL.equals(n.getTag())) {
                continue;
            }
            Locations loc = new Locations();
            java.util.List<DuplicateKey> dups = new java.util.ArrayList<>();
            int[] budget = {MAX_NODES};
            JsonNode root = convert(n, loc, dups, budget);
            return Optional.of(new Doc(index, line(n), root, loc, dups));
        }
    }

    /** @return the first line (1-based) holding a Go template action, or 0 */
    int templateLine() {
        return reader.templateLine;
    }

    YamlInputException templateOr(YamlInputException e) {
        if (reader.templateLine > 0) {
            return new YamlInputException("looks like a Helm/Go template ('{{' at line " + reader.templateLine
                    + "), not a manifest: render it first, e.g. helm template RELEASE CHART | vitals lint -",
                    reader.templateLine);
        }
        return e;
    }

    private static String contextText(MarkedYamlEngineException e) {
        String ctx = e.getContext();
        return ctx == null || ctx.isBlank() ? "" : " (" + oneLine(ctx) + ")";
    }

    static String oneLine(String s) {
        if (s == null) {
            return "unknown error";
        }
        for (String l : s.split("\\R")) {
            if (!l.isBlank()) {
                return l.strip();
            }
        }
        return s.strip();
    }

    static int line(Node n) {
        return n.getStartMark().map(Mark::getLine).orElse(-1) + 1;
    }

    private JsonNode convert(Node n, Locations loc, java.util.List<DuplicateKey> dups, int[] budget) {
        if (--budget[0] < 0) {
            throw new YamlInputException("document " + index + " expands to more than " + MAX_NODES
                    + " nodes (aliases?); refusing to expand it", line(n));
        }
        if (n instanceof MappingNode) {
            ObjectNode o = F.objectNode();
            loc.nodeLines.put(o, line(n));
            Map<String, Integer> keys = new HashMap<>();
            for (NodeTuple t : ((MappingNode) n).getValue()) {
                Node k = t.getKeyNode();
                String key = k instanceof ScalarNode ? ((ScalarNode) k).getValue() : String.valueOf(convert(k, loc, dups, budget));
                if (k instanceof ScalarNode && key.equals("<<") && Tag.MERGE.equals(k.getTag()) || "<<".equals(key)
                        && k instanceof ScalarNode && ((ScalarNode) k).isPlain()) {
                    merge(o, t.getValueNode(), loc, dups, budget);
                    continue;
                }
                Integer first = keys.putIfAbsent(key, line(k));
                if (first != null) {
                    dups.add(new DuplicateKey(key, first, line(k)));
                }
                o.set(key, convert(t.getValueNode(), loc, dups, budget));
                loc.keyLines.computeIfAbsent(o, x -> new HashMap<>()).put(key, line(k));
            }
            return o;
        }
        if (n instanceof SequenceNode) {
            ArrayNode a = F.arrayNode();
            loc.nodeLines.put(a, line(n));
            for (Node item : ((SequenceNode) n).getValue()) {
                a.add(convert(item, loc, dups, budget));
            }
            return a;
        }
        ScalarNode s = (ScalarNode) n;
        String v = s.getValue();
        Tag tag = s.getTag();
        if (Tag.NULL.equals(tag)) {
            return F.nullNode();
        }
        if (Tag.BOOL.equals(tag)) {
            return F.booleanNode(v.equalsIgnoreCase("true"));
        }
        if (Tag.INT.equals(tag)) {
            try {
                BigInteger b;
                if (v.startsWith("0x")) {
                    b = new BigInteger(v.substring(2), 16);
                } else if (v.startsWith("0o")) {
                    b = new BigInteger(v.substring(2), 8);
                } else {
                    b = new BigInteger(v.startsWith("+") ? v.substring(1) : v);
                }
                return b.bitLength() < 64 ? F.numberNode(b.longValue()) : F.numberNode(b);
            } catch (NumberFormatException e) {
                return F.textNode(v);
            }
        }
        if (Tag.FLOAT.equals(tag)) {
            try {
                String f = v.toLowerCase(java.util.Locale.ROOT);
                double d = f.endsWith(".inf") ? (f.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY)
                        : f.equals(".nan") ? Double.NaN : Double.parseDouble(v);
                return F.numberNode(d);
            } catch (NumberFormatException e) {
                return F.textNode(v);
            }
        }
        return F.textNode(v);
    }

    private void merge(ObjectNode into, Node value, Locations loc, java.util.List<DuplicateKey> dups, int[] budget) {
        JsonNode v = convert(value, loc, dups, budget);
        java.util.List<JsonNode> sources = new java.util.ArrayList<>();
        if (v.isArray()) {
            v.forEach(sources::add);
        } else {
            sources.add(v);
        }
        for (JsonNode src : sources) {
            if (!src.isObject()) {
                continue;
            }
            Map<String, Integer> srcLines = loc.keyLines.getOrDefault(src, Map.of());
            src.fields().forEachRemaining(e -> {
                if (!into.has(e.getKey())) {
                    into.set(e.getKey(), e.getValue());
                    Integer l = srcLines.get(e.getKey());
                    if (l != null) {
                        loc.keyLines.computeIfAbsent(into, x -> new HashMap<>()).put(e.getKey(), l);
                    }
                }
            });
        }
    }

    /** Lines of mapping keys and collections of one document (1-based). */
    static final class Locations {
        final Map<JsonNode, Integer> nodeLines = new IdentityHashMap<>();
        final Map<JsonNode, Map<String, Integer>> keyLines = new IdentityHashMap<>();

        /** @return the line of {@code key} in mapping {@code o}, else the mapping's own line, else 0 */
        int line(JsonNode o, String key) {
            Map<String, Integer> m = keyLines.get(o);
            Integer l = m == null ? null : m.get(key);
            return l != null ? l : line(o);
        }

        /** @return the line where a mapping or sequence starts, or 0 */
        int line(JsonNode o) {
            Integer l = nodeLines.get(o);
            return l == null ? 0 : l;
        }

        /**
         * @param from a mapping
         * @param dotted a path below it such as {@code livenessProbe.httpGet.port}
         * @return the line of the deepest key of the path that exists
         */
        int lineOf(JsonNode from, String dotted) {
            JsonNode cur = from;
            int best = line(from);
            for (String part : dotted.split("\\.")) {
                if (part.isEmpty() || cur == null || !cur.isObject()) {
                    break;
                }
                int bracket = part.indexOf('[');
                String key = bracket < 0 ? part : part.substring(0, bracket);
                if (!cur.has(key)) {
                    break;
                }
                best = line(cur, key);
                cur = cur.get(key);
            }
            return best;
        }
    }

    /** Counts nothing, copies nothing: notes the first line holding "{{" as the text streams by. */
    private static final class TemplateSniffer extends FilterReader {
        int templateLine;
        private int lineNo = 1;
        private char prev;

        TemplateSniffer(Reader in) {
            super(in);
        }

        @Override
        public int read(char[] buf, int off, int len) throws IOException {
            int n = super.read(buf, off, len);
            if (templateLine == 0) {
                for (int i = off; i < off + n; i++) {
                    char c = buf[i];
                    if (c == '\n') {
                        lineNo++;
                    } else if (c == '{' && prev == '{') {
                        templateLine = lineNo;
                        break;
                    }
                    prev = c;
                }
            }
            return n;
        }

        @Override
        public int read() throws IOException {
            char[] one = new char[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0];
        }
    }
}
