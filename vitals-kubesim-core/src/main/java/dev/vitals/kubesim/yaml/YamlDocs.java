package dev.vitals.kubesim.yaml;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vitals.kubesim.input.InvalidInputException;
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
import org.snakeyaml.engine.v2.parser.ParserImpl;
import org.snakeyaml.engine.v2.common.Anchor;
import org.snakeyaml.engine.v2.events.AliasEvent;
import org.snakeyaml.engine.v2.events.Event;
import org.snakeyaml.engine.v2.events.NodeEvent;
import org.snakeyaml.engine.v2.events.ScalarEvent;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.Tag;
import org.snakeyaml.engine.v2.resolver.ScalarResolver;
import org.snakeyaml.engine.v2.scanner.StreamReader;
import org.snakeyaml.engine.v2.schema.CoreSchema;

/**
 * Streams the documents of a YAML (or JSON) text one at a time, as Jackson trees with the line
 * of every mapping key kept aside, the way the API server's strict decoding sees them: a key
 * written twice in one mapping is reported with both lines (kubectl: "duplicate field").
 * Only one document is held in memory at a time, so a stream of tens of megabytes costs the
 * largest document, not the stream. No document size limit below 2^31 code points.
 * Every YAML input of the module is read here (manifests for {@code lint} and {@code simulate},
 * app-config, scenarios, fleet specs), so they accept the same YAML: the core schema, anchors
 * and aliases, merge keys ({@code <<: *anchor}; an explicit key overrides a merged one), and
 * no key written twice. {@link #readAll} is the strict form for inputs that reject a duplicate
 * key outright. Not thread-safe; one instance per input.
 */
public final class YamlDocs {
    /** Node budget per document: aliases are shared in YAML but copied here (billion laughs). */
    public static final int MAX_NODES = 5_000_000;
    /** Deepest nesting of mappings and sequences accepted (issue 30: 20,000 levels overflowed the stack). */
    public static final int MAX_DEPTH = 1_000;
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    /** One parsed document: its tree, where its keys are, and duplicate keys found. */
    public static final class Doc {
        /** 1-based index of the document in the stream. */
        public final int index;
        /** 1-based line where the document's root node starts. */
        public final int line;
        /** The document's tree (never null; a YAML null is skipped by {@link #next()}). */
        public final JsonNode root;
        /** Lines of the keys of {@link #root}. */
        public final Locations locations;
        /** Keys written twice in one mapping, in the order found. */
        public final java.util.List<DuplicateKey> duplicates;

        Doc(int index, int line, JsonNode root, Locations locations, java.util.List<DuplicateKey> duplicates) {
            this.index = index;
            this.line = line;
            this.root = root;
            this.locations = locations;
            this.duplicates = duplicates;
        }
    }

    /** A key written twice in one mapping (1-based lines). */
    public record DuplicateKey(String key, int firstLine, int secondLine) {
    }

    /** Bad input in a stream: one line for a person, with the line where it was found (1-based, 0 unknown). */
    public static final class YamlInputException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        /** 1-based line of the problem, 0 when unknown. */
        public final int line;

        /**
         * @param message one line for a person
         * @param line 1-based line, 0 when unknown
         */
        public YamlInputException(String message, int line) {
            super(message, null, false, false);
            this.line = line;
        }
    }

    private final TemplateSniffer reader;
    private final String renderHint;
    private final Iterator<Event> events;
    private final ScalarResolver resolver = new CoreSchema().getScalarResolver();
    private int index;
    private Map<Anchor, JsonNode> anchors = new HashMap<>();
    private Map<JsonNode, Integer> sizes = new IdentityHashMap<>();
    private Locations loc;
    private java.util.List<DuplicateKey> dups;
    private int budget;
    private int depth;

    /**
     * @param in the text; read as documents are asked for, never closed here
     * @param label the input's name, used in snakeyaml's marks
     * @param renderHint the command shown when the input is a Helm/Go template, e.g.
     *        {@code helm template RELEASE CHART | vitals lint -}
     */
    public YamlDocs(Reader in, String label, String renderHint) {
        this.reader = new TemplateSniffer(in);
        this.renderHint = renderHint;
        LoadSettings settings = LoadSettings.builder().setLabel(label).setCodePointLimit(Integer.MAX_VALUE)
                .setUseMarks(true).setBufferSize(64 * 1024).build();
        // what api.lowlevel.Parse#parseReader does, from exported packages (the module does not export lowlevel)
        this.events = new ParserImpl(settings, new StreamReader(settings, reader));
    }

    /**
     * Reads every document of a text strictly: a key written twice in one mapping is an error,
     * as the API server's strict decoding and Spring Boot's YAML loader make it.
     *
     * @param text YAML or JSON, one or more documents
     * @param source the input's name, the start of every message
     * @param renderHint the command shown when the text is a Helm/Go template
     * @return the non-empty documents, in order
     * @throws InvalidInputException one line, {@code source:LINE: problem}, when the text is not
     *         YAML, is a template, or writes a key twice
     */
    public static java.util.List<Doc> readAll(String text, String source, String renderHint) {
        java.util.List<Doc> out = new java.util.ArrayList<>();
        YamlDocs docs = new YamlDocs(new java.io.StringReader(text), source, renderHint);
        try {
            for (Optional<Doc> d = docs.next(); d.isPresent(); d = docs.next()) {
                for (DuplicateKey k : d.get().duplicates) {
                    throw new InvalidInputException(source + ":" + k.secondLine() + ": " + duplicateMessage(k));
                }
                out.add(d.get());
            }
        } catch (YamlInputException e) {
            throw new InvalidInputException(source + (e.line > 0 ? ":" + e.line : "") + ": " + e.getMessage());
        } catch (UncheckedIOException e) {
            throw new InvalidInputException(source + ": cannot read: " + InvalidInputException.reason(e.getCause()));
        }
        return out;
    }

    /**
     * Reads a text that holds one document (a scenario, a fleet spec), strictly as {@link #readAll}.
     *
     * @param text YAML or JSON
     * @param source the input's name, the start of every message
     * @return the document's tree; a missing node when the text holds no document
     * @throws InvalidInputException as {@link #readAll}, and when the text holds several documents
     */
    public static JsonNode readOne(String text, String source) {
        java.util.List<Doc> docs = readAll(text, source, "render it first");
        if (docs.size() > 1) {
            throw new InvalidInputException(source + ":" + docs.get(1).line + ": holds " + docs.size()
                    + " YAML documents ('---'); this file is one document");
        }
        return docs.isEmpty() ? com.fasterxml.jackson.databind.node.MissingNode.getInstance() : docs.get(0).root;
    }

    /**
     * @param k a key written twice
     * @return the one-line problem, naming both lines
     */
    public static String duplicateMessage(DuplicateKey k) {
        return "key '" + k.key() + "' is written twice in one mapping (lines " + k.firstLine() + " and "
                + k.secondLine() + "): YAML keys are unique, and strict readers reject it (the API server: duplicate field;"
                + " Spring Boot refuses to start); keep one '" + k.key() + "' (merge the two)";
    }

    /**
     * @return the next non-empty document, or empty at the end of the stream
     * @throws YamlInputException when the text is not YAML (or is a Go template)
     * @throws UncheckedIOException when reading fails
     */
    public Optional<Doc> next() {
        try {
            while (true) {
                if (!events.hasNext()) {
                    return Optional.empty();
                }
                Event e = events.next();
                switch (e.getEventId()) {
                    case DocumentStart:
                        index++;
                        anchors = new HashMap<>();
                        sizes = new IdentityHashMap<>();
                        loc = new Locations();
                        dups = new java.util.ArrayList<>();
                        budget = MAX_NODES;
                        depth = 0;
                        Event first = events.next();
                        JsonNode root = node(first);
                        Event end = events.next();
                        if (end.getEventId() != Event.ID.DocumentEnd) {
                            throw new YamlInputException("not valid YAML: expected the end of document " + index, line(end));
                        }
                        if (root.isNull()) {
                            continue;
                        }
                        return Optional.of(new Doc(index, line(first), root, loc, dups));
                    default:
                        continue;
                }
            }
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
    }

    /** @return the first line (1-based) holding a Go template action, or 0 */
    public int templateLine() {
        return reader.templateLine;
    }

    /**
     * @param e the problem found, or null
     * @return a "looks like a Helm/Go template" problem when the text holds "{{" so far, else {@code e}
     */
    public YamlInputException templateOr(YamlInputException e) {
        if (reader.templateLine > 0) {
            return new YamlInputException("looks like a Helm/Go template ('{{' at line " + reader.templateLine
                    + "), not a manifest: render it first, e.g. " + renderHint, reader.templateLine);
        }
        return e;
    }

    private static String contextText(MarkedYamlEngineException e) {
        String ctx = e.getContext();
        return ctx == null || ctx.isBlank() ? "" : " (" + oneLine(ctx) + ")";
    }

    /**
     * Shortens a text to its first line, for one-line messages.
     *
     * @param s the text
     * @return the first non-blank line of {@code s}, stripped
     */
    public static String oneLine(String s) {
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

    static int line(Event e) {
        return e.getStartMark().map(Mark::getLine).orElse(-1) + 1;
    }

    private void spend(int n, Event at) {
        budget -= n;
        if (budget < 0) {
            throw new YamlInputException("document " + index + " expands to more than " + MAX_NODES
                    + " nodes (aliases?); refusing to expand it", line(at));
        }
    }

    private void enter(Event at) {
        if (++depth > MAX_DEPTH) {
            throw new YamlInputException("document " + index + " nests mappings/sequences more than " + MAX_DEPTH
                    + " levels deep; refusing it", line(at));
        }
    }

    /** Builds the node that starts with {@code e}, reading events up to its end. */
    private JsonNode node(Event e) {
        switch (e.getEventId()) {
            case Alias: {
                Anchor a = ((AliasEvent) e).getAlias();
                JsonNode target = anchors.get(a);
                if (target == null) {
                    throw new YamlInputException("not valid YAML: found undefined alias " + a, line(e));
                }
                spend(sizes.getOrDefault(target, 1), e);
                return target;
            }
            case Scalar: {
                spend(1, e);
                JsonNode n = scalar((ScalarEvent) e);
                anchor(e, n, 1);
                return n;
            }
            case SequenceStart:
                return sequence(e);
            case MappingStart:
                return mapping(e);
            default:
                throw new YamlInputException("not valid YAML: unexpected " + e.getEventId(), line(e));
        }
    }

    /** A sequence, from its start event {@code e} to its end. */
    private ArrayNode sequence(Event e) {
        int before = open(e);
        ArrayNode a = F.arrayNode();
        loc.nodeLines.put(a, line(e));
        for (Event x = events.next(); x.getEventId() != Event.ID.SequenceEnd; x = events.next()) {
            a.add(node(x));
        }
        return close(e, a, before);
    }

    /** @return the budget before a collection that starts with {@code e}: one level deeper, its own node spent */
    private int open(Event e) {
        enter(e);
        int before = budget;
        spend(1, e);
        return before;
    }

    /** @return the collection that started with {@code e}, anchored with the nodes it spent since {@code before}; one level up */
    private <T extends JsonNode> T close(Event e, T n, int before) {
        anchor(e, n, before - budget);
        depth--;
        return n;
    }

    /**
     * A mapping, from its start event {@code e} to its end: a {@code <<} merge key brings in the
     * keys of its mapping (an explicit key overrides a merged one); a key written twice is a
     * duplicate, kept last-wins and recorded with both lines.
     */
    private ObjectNode mapping(Event e) {
        int before = open(e);
        ObjectNode o = F.objectNode();
        loc.nodeLines.put(o, line(e));
        java.util.Set<String> fromMerge = new java.util.HashSet<>(); // keys a '<<' brought in, not yet written here
        for (Event k = events.next(); k.getEventId() != Event.ID.MappingEnd; k = events.next()) {
            int keyLine = line(k);
            boolean merge = k instanceof ScalarEvent && ((ScalarEvent) k).isPlain()
                    && "<<".equals(((ScalarEvent) k).getValue());
            JsonNode keyNode = node(k);
            JsonNode value = node(events.next());
            if (merge) {
                java.util.Set<String> before0 = new java.util.HashSet<>();
                o.fieldNames().forEachRemaining(before0::add);
                merge(o, value);
                o.fieldNames().forEachRemaining(n -> {
                    if (!before0.contains(n)) {
                        fromMerge.add(n);
                    }
                });
                continue;
            }
            if (!keyNode.isValueNode()) {
                throw templateOr(new YamlInputException("not valid YAML for Kubernetes: a "
                        + (keyNode.isArray() ? "list" : "mapping") + " used as a key", keyLine));
            }
            String key = keyNode.asText();
            // an explicit key overrides a merged one (YAML merge); only a key written twice is a duplicate
            boolean dup = o.has(key) && !fromMerge.remove(key);
            if (dup) {
                dups.add(new DuplicateKey(key, loc.line(o, key), keyLine));
            }
            o.set(key, value);
            loc.put(o, key, keyLine, !dup);
        }
        return close(e, o, before);
    }

    private void anchor(Event e, JsonNode n, int size) {
        Optional<Anchor> a = ((NodeEvent) e).getAnchor();
        if (a.isPresent()) {
            anchors.put(a.get(), n);
            sizes.put(n, Math.max(1, size));
        }
    }

    private JsonNode scalar(ScalarEvent s) {
        String v = s.getValue();
        if (!s.isPlain() && s.getTag().isEmpty() || s.isPlain() && s.getTag().isEmpty() && plainText(v)) {
            return F.textNode(v); // quoted, or plain text no core-schema pattern can match: skip the resolver's regexes
        }
        Tag tag = s.getTag().filter(t -> !t.equals("!")).map(Tag::new)
                .orElseGet(() -> resolver.resolve(v, s.getImplicit().canOmitTagInPlainScalar()));
        if (Tag.STR.equals(tag)) {
            return F.textNode(v);
        }
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

    /** @return true when a plain scalar can only be a string in the core schema (first character a letter none of its patterns starts with) */
    private static boolean plainText(String v) {
        if (v.isEmpty()) {
            return false;
        }
        char c = v.charAt(0);
        return Character.isLetter(c) && "tTfFnN".indexOf(c) < 0;
    }

    private void merge(ObjectNode into, JsonNode v) {
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
            src.fields().forEachRemaining(e -> {
                if (!into.has(e.getKey())) {
                    into.set(e.getKey(), e.getValue());
                    loc.put(into, e.getKey(), loc.line(src, e.getKey()), true);
                }
            });
        }
    }

    /** Lines of mapping keys and collections of one document (1-based). */
    public static final class Locations {
        final Map<JsonNode, Integer> nodeLines = new IdentityHashMap<>();
        private final Map<JsonNode, KeyLines> keyLines = new IdentityHashMap<>();

        void put(JsonNode o, String key, int line, boolean isNew) {
            keyLines.computeIfAbsent(o, x -> new KeyLines()).put(key, line, isNew);
        }

        /**
         * Finds where a key was written, for findings.
         *
         * @param o a mapping read by this reader
         * @param key one of its keys
         * @return the line of {@code key} in mapping {@code o}, else the mapping's own line, else 0
         */
        public int line(JsonNode o, String key) {
            KeyLines m = keyLines.get(o);
            int l = m == null ? 0 : m.get(key);
            return l > 0 ? l : line(o);
        }

        /**
         * Finds where a node was written, for findings.
         *
         * @param o a mapping or sequence read by this reader
         * @return the line where a mapping or sequence starts, or 0
         */
        public int line(JsonNode o) {
            Integer l = nodeLines.get(o);
            return l == null ? 0 : l;
        }

        /**
         * @param from a mapping
         * @param dotted a path below it such as {@code livenessProbe.httpGet.port}
         * @return the line of the deepest key of the path that exists
         */
        public int lineOf(JsonNode from, String dotted) {
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

    /** Keys and their lines of one mapping, in small arrays (most mappings have a few keys). */
    private static final class KeyLines {
        private String[] keys = new String[4];
        private int[] lines = new int[4];
        private int n;

        void put(String key, int line, boolean isNew) {
            for (int i = 0; !isNew && i < n; i++) {
                if (keys[i].equals(key)) {
                    lines[i] = line;
                    return;
                }
            }
            if (n == keys.length) {
                keys = java.util.Arrays.copyOf(keys, n * 2);
                lines = java.util.Arrays.copyOf(lines, n * 2);
            }
            keys[n] = key;
            lines[n++] = line;
        }

        int get(String key) {
            for (int i = 0; i < n; i++) {
                if (keys[i].equals(key)) {
                    return lines[i];
                }
            }
            return 0;
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
