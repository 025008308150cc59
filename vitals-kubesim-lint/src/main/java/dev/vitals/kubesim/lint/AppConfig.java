package dev.vitals.kubesim.lint;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vitals.kubesim.input.InvalidInputException;
import dev.vitals.kubesim.yaml.YamlDocs;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A Spring Boot application's configuration as {@code vitals lint --app-config} reads it:
 * {@code application.yaml}/{@code .yml}/{@code .properties} files, their multi-document
 * sections activated by {@code spring.config.activate.on-profile} (or the older
 * {@code spring.profiles}), the profile files beside them ({@code application-<profile>.*}),
 * and, per container, the environment and {@code --name=value} arguments of the manifest on
 * top (Spring's relaxed binding: {@code MANAGEMENT_SERVER_PORT} is
 * {@code management.server.port}). Precedence as in Spring Boot: profile documents over plain
 * ones, profile files over the base file, later over earlier, environment and arguments over
 * files. Keys compare in canonical form (lower case, no dashes), so {@code show-details},
 * {@code showDetails} and {@code SHOW_DETAILS} are one key. Immutable after loading.
 */
public final class AppConfig {
    /** A property with where it was written. */
    public record Prop(String key, String value, String file, int line) {
    }

    private record Section(Path file, List<String> onProfiles, Map<String, Prop> props) {
    }

    private final List<Path> files;
    private final Set<String> profiles;
    private final List<Section> sections = new ArrayList<>();
    private final Map<Path, List<Section>> profileFiles = new LinkedHashMap<>();

    private AppConfig(List<Path> files, Set<String> profiles) {
        this.files = List.copyOf(files);
        this.profiles = Set.copyOf(profiles);
    }

    /**
     * Reads the files.
     *
     * @param files {@code .yaml}, {@code .yml} or {@code .properties} files, lowest precedence first
     * @param profiles active profiles; empty = {@code spring.profiles.active} from the files or environment
     * @return the configuration
     * @throws InvalidInputException when a file cannot be read, has another extension or is not valid
     */
    public static AppConfig load(List<Path> files, Set<String> profiles) {
        AppConfig c = new AppConfig(files, profiles);
        for (Path f : files) {
            c.sections.addAll(read(f));
        }
        return c;
    }

    /** @return the files given */
    public List<Path> files() {
        return files;
    }

    private static List<Section> read(Path f) {
        String n = f.getFileName().toString().toLowerCase(Locale.ROOT);
        if (!Files.isRegularFile(f)) {
            throw new InvalidInputException(f + ": " + (Files.isDirectory(f) ? "is a directory" : "no such file")
                    + " (--app-config takes an application.yaml, .yml or .properties file)");
        }
        try {
            if (n.endsWith(".properties")) {
                return readProperties(f, Files.readAllLines(f, StandardCharsets.ISO_8859_1));
            }
            if (n.endsWith(".yaml") || n.endsWith(".yml")) {
                return readYaml(f);
            }
        } catch (IOException e) {
            throw new InvalidInputException(f + ": cannot read: " + InvalidInputException.reason(e));
        }
        throw new InvalidInputException(f + ": --app-config takes .yaml, .yml or .properties files");
    }

    /**
     * A properties file accepts almost any text, so a file that is not one would be read as
     * nonsense keys and the join would go on silently (issue 40): a control character (a binary
     * file) or YAML's shape — {@code key:} with nothing after it, then an indented line — is an error.
     */
    private static void checkPropertiesText(Path f, List<String> lines) {
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            for (int k = 0; k < line.length(); k++) {
                char c = line.charAt(k);
                if ((c < 0x20 && c != '\t' && c != '\f' && c != '\r') || c == 0x7f) {
                    throw new InvalidInputException(f + ":" + (i + 1) + ": control character 0x" + Integer.toHexString(c)
                            + ": not a properties file (text, key=value lines)");
                }
            }
            String t = line.strip();
            boolean comment = t.startsWith("#") || t.startsWith("!");
            if (!comment && t.endsWith(":") && !line.startsWith(" ") && !line.startsWith("\t") && i + 1 < lines.size()) {
                String next = lines.get(i + 1);
                if (!next.isBlank() && (next.startsWith(" ") || next.startsWith("\t")) && !t.endsWith("\\:")) {
                    throw new InvalidInputException(f + ":" + (i + 1) + ": '" + t + "' followed by an indented line is YAML,"
                            + " not properties: name the file .yaml or .yml (or write " + t.substring(0, t.length() - 1).strip()
                            + ".<key>=<value> lines)");
                }
            }
        }
    }

    private static List<Section> readYaml(Path f) throws IOException {
        List<Section> out = new ArrayList<>();
        try (Reader r = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
            YamlDocs docs = new YamlDocs(r, f.toString(), "helm template RELEASE CHART");
            while (true) {
                Optional<YamlDocs.Doc> d;
                try {
                    d = docs.next();
                } catch (YamlDocs.YamlInputException e) {
                    throw new InvalidInputException(f + (e.line > 0 ? ":" + e.line : "") + ": " + e.getMessage());
                } catch (UncheckedIOException e) {
                    throw e.getCause();
                }
                if (d.isEmpty()) {
                    break;
                }
                if (!d.get().root.isObject()) {
                    throw new InvalidInputException(f + ": document " + d.get().index + " is not a mapping of properties");
                }
                // Spring Boot's YAML loader refuses a key written twice (OriginTrackedYamlLoader:
                // setAllowDuplicateKeys(false)), as the API server does for manifests
                for (YamlDocs.DuplicateKey k : d.get().duplicates) {
                    throw new InvalidInputException(f + ":" + k.secondLine() + ": " + YamlDocs.duplicateMessage(k));
                }
                Map<String, Prop> props = new LinkedHashMap<>();
                flatten(d.get().root, "", f.toString(), d.get().locations, props, 0);
                out.add(section(f, props));
            }
        }
        return out;
    }

    private static void flatten(JsonNode n, String prefix, String file, YamlDocs.Locations loc, Map<String, Prop> out,
            int line) {
        if (n.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> it = n.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                String k = e.getKey();
                String key = prefix.isEmpty() ? k : k.startsWith("[") ? prefix + k : prefix + "." + k;
                flatten(e.getValue(), key, file, loc, out, loc.line(n, k));
            }
        } else if (n.isArray()) {
            List<String> scalars = new ArrayList<>();
            int i = 0;
            for (JsonNode item : n) {
                flatten(item, prefix + "[" + i++ + "]", file, loc, out, line);
                if (item.isValueNode()) {
                    scalars.add(item.asText());
                }
            }
            out.put(canonical(prefix), new Prop(prefix, String.join(",", scalars), file, line));
        } else {
            out.put(canonical(prefix), new Prop(prefix, n.isNull() ? "" : n.asText(), file, line));
        }
    }

    static List<Section> readProperties(Path f, List<String> lines) {
        checkPropertiesText(f, lines);
        List<Section> out = new ArrayList<>();
        Map<String, Prop> props = new LinkedHashMap<>();
        StringBuilder logical = null;
        int start = 0;
        for (int i = 0; i < lines.size(); i++) {
            String raw = lines.get(i);
            if (logical == null) {
                String t = raw.strip();
                if (t.equals("#---") || t.equals("!---")) {
                    out.add(section(f, props));
                    props = new LinkedHashMap<>();
                    continue;
                }
                if (t.isEmpty() || t.startsWith("#") || t.startsWith("!")) {
                    continue;
                }
                logical = new StringBuilder();
                start = i + 1;
                raw = t;
            } else {
                raw = raw.stripLeading();
            }
            if (endsWithContinuation(raw)) {
                logical.append(raw, 0, raw.length() - 1);
                continue;
            }
            logical.append(raw);
            String line = logical.toString();
            logical = null;
            int sep = -1;
            for (int j = 0; j < line.length(); j++) {
                char c = line.charAt(j);
                if (c == '\\') {
                    j++;
                } else if (c == '=' || c == ':' || Character.isWhitespace(c)) {
                    sep = j;
                    break;
                }
            }
            String key = sep < 0 ? line : line.substring(0, sep);
            String value = sep < 0 ? "" : line.substring(sep + 1).strip();
            if (sep >= 0 && Character.isWhitespace(line.charAt(sep)) && (value.startsWith("=") || value.startsWith(":"))) {
                value = value.substring(1).strip();
            }
            key = unescape(key);
            props.put(canonical(key), new Prop(key, unescape(value), f.toString(), start));
        }
        out.add(section(f, props));
        return out;
    }

    private static boolean endsWithContinuation(String s) {
        int n = 0;
        for (int i = s.length() - 1; i >= 0 && s.charAt(i) == '\\'; i--) {
            n++;
        }
        return n % 2 == 1;
    }

    private static String unescape(String s) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char d = s.charAt(++i);
                b.append(d == 't' ? '\t' : d == 'n' ? '\n' : d == 'r' ? '\r' : d);
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static Section section(Path f, Map<String, Prop> props) {
        Prop on = props.get(canonical("spring.config.activate.on-profile"));
        if (on == null) {
            on = props.get(canonical("spring.profiles"));
        }
        List<String> onProfiles = new ArrayList<>();
        if (on != null) {
            for (String p : on.value().split("[,|]")) {
                if (!p.isBlank()) {
                    onProfiles.add(p.strip());
                }
            }
        }
        return new Section(f, onProfiles, props);
    }

    /**
     * @param key a property name in any of Spring's relaxed forms
     * @return its canonical form: lower case, no dashes
     */
    static String canonical(String key) {
        StringBuilder b = new StringBuilder(key.length());
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c != '-') {
                b.append(Character.toLowerCase(c));
            }
        }
        return b.toString();
    }

    /**
     * @param env an environment variable name, e.g. {@code MANAGEMENT_SERVER_PORT}
     * @return the canonical property it binds to ({@code management.server.port})
     */
    static String canonicalEnv(String env) {
        return canonical(env).replace('_', '.');
    }

    /**
     * The properties in force for one container.
     *
     * @param env the container's literal environment (highest precedence with {@code args})
     * @param args the container's command and arguments ({@code --name=value} ones are read)
     * @return the merged view
     */
    public View view(Map<String, String> env, List<String> args) {
        Map<String, Prop> over = overrides(env, args);
        Set<String> active = activeProfiles(over);
        Map<String, Prop> merged = new LinkedHashMap<>();
        for (Section s : sections) {
            if (s.onProfiles().isEmpty()) {
                merged.putAll(s.props());
            }
        }
        for (Section s : sections) {
            if (!s.onProfiles().isEmpty() && matches(s.onProfiles(), active)) {
                merged.putAll(s.props());
            }
        }
        for (String p : active) {
            for (Path base : files) {
                for (Section s : profileFile(base, p)) {
                    if (s.onProfiles().isEmpty() || matches(s.onProfiles(), active)) {
                        merged.putAll(s.props());
                    }
                }
            }
        }
        merged.putAll(over);
        return new View(merged, active);
    }

    /**
     * @return what the container sets over the files: its upper-case env variables (relaxed binding),
     *         SPRING_APPLICATION_JSON flattened, and its {@code --name=value} and {@code -Dname=value} arguments
     */
    private static Map<String, Prop> overrides(Map<String, String> env, List<String> args) {
        Map<String, Prop> over = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : env.entrySet()) {
            if (e.getKey().chars().allMatch(c -> Character.isUpperCase(c) || Character.isDigit(c) || c == '_')) {
                over.put(canonicalEnv(e.getKey()), new Prop(e.getKey(), e.getValue(), "env", 0));
            }
        }
        String json = env.get("SPRING_APPLICATION_JSON");
        if (json != null && !json.isBlank()) {
            try {
                JsonNode tree = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json);
                Map<String, Prop> flat = new LinkedHashMap<>();
                flatten(tree, "", "env SPRING_APPLICATION_JSON", new YamlDocs.Locations(), flat, 0);
                over.remove(canonicalEnv("SPRING_APPLICATION_JSON"));
                over.putAll(flat);
            } catch (IOException e) {
                // not JSON: Spring would fail to start; the manifest-only rules still run
            }
        }
        for (String a : args) {
            if (a.startsWith("--") && a.indexOf('=') > 2) {
                String k = a.substring(2, a.indexOf('='));
                over.put(canonical(k), new Prop(k, a.substring(a.indexOf('=') + 1), "args", 0));
            } else if (a.startsWith("-D") && a.indexOf('=') > 2) {
                String k = a.substring(2, a.indexOf('='));
                over.put(canonical(k), new Prop(k, a.substring(a.indexOf('=') + 1), "args", 0));
            }
        }
        return over;
    }

    /** @return the profiles given, else spring.profiles.active from the container, else from the files' default sections */
    private Set<String> activeProfiles(Map<String, Prop> over) {
        Set<String> active = new LinkedHashSet<>(profiles);
        if (!active.isEmpty()) {
            return active;
        }
        Prop p = over.get(canonical("spring.profiles.active"));
        if (p == null) {
            for (Section s : sections) {
                if (s.onProfiles().isEmpty() && s.props().containsKey(canonical("spring.profiles.active"))) {
                    p = s.props().get(canonical("spring.profiles.active"));
                }
            }
        }
        if (p != null) {
            for (String x : p.value().split(",")) {
                if (!x.isBlank()) {
                    active.add(x.strip());
                }
            }
        }
        return active;
    }

    private static boolean matches(List<String> on, Set<String> active) {
        for (String p : on) {
            boolean neg = p.startsWith("!");
            String name = neg ? p.substring(1).strip() : p;
            if (neg != active.contains(name)) {
                return true;
            }
        }
        return false;
    }

    private synchronized List<Section> profileFile(Path base, String profile) {
        String n = base.getFileName().toString();
        int dot = n.lastIndexOf('.');
        if (dot < 0 || n.substring(0, dot).contains("-")) {
            return List.of();
        }
        List<Section> out = new ArrayList<>();
        for (String ext : List.of(".properties", ".yaml", ".yml")) {
            Path p = base.resolveSibling(n.substring(0, dot) + "-" + profile + ext);
            if (files.contains(p) || !Files.isRegularFile(p)) {
                continue;
            }
            out.addAll(profileFiles.computeIfAbsent(p, AppConfig::read));
        }
        return out;
    }

    /** The merged properties for one container. Immutable. */
    public static final class View {
        private final Map<String, Prop> props;
        private final Set<String> profiles;

        View(Map<String, Prop> props, Set<String> profiles) {
            this.props = Map.copyOf(props);
            this.profiles = Set.copyOf(profiles);
        }

        /** @return the active profiles */
        public Set<String> profiles() {
            return profiles;
        }

        /**
         * One property by key.
         *
         * @param key the key, in any of Spring Boot's relaxed forms
         * @return the property, with {@code ${name:default}} placeholders resolved
         */
        public Optional<Prop> get(String key) {
            Prop p = props.get(canonical(key));
            if (p == null || p.value().indexOf("${") < 0) {
                return Optional.ofNullable(p);
            }
            return Optional.of(new Prop(p.key(), resolve(p.value(), 0), p.file(), p.line()));
        }

        /**
         * One property's value.
         *
         * @param key the key, in any of Spring Boot's relaxed forms
         * @return the value, if set
         */
        public Optional<String> value(String key) {
            return get(key).map(Prop::value);
        }

        /**
         * The keys under a prefix.
         *
         * @param prefix a canonical key prefix, such as {@code management.endpoint.health}
         * @return every canonical key starting with {@code prefix} (canonical)
         */
        public List<String> keysUnder(String prefix) {
            String c = canonical(prefix);
            List<String> out = new ArrayList<>();
            for (String k : props.keySet()) {
                if (k.startsWith(c)) {
                    out.add(k);
                }
            }
            java.util.Collections.sort(out);
            return out;
        }

        /** @return the property under its canonical key */
        Optional<Prop> getCanonical(String canonicalKey) {
            return Optional.ofNullable(props.get(canonicalKey));
        }

        private String resolve(String v, int depth) {
            StringBuilder b = new StringBuilder();
            int i = 0;
            while (i < v.length()) {
                int s = v.indexOf("${", i);
                int e = s < 0 ? -1 : v.indexOf('}', s);
                if (s < 0 || e < 0 || depth > 8) {
                    b.append(v.substring(i));
                    break;
                }
                b.append(v, i, s);
                String inner = v.substring(s + 2, e);
                int colon = inner.indexOf(':');
                String name = colon < 0 ? inner : inner.substring(0, colon);
                Prop p = props.get(canonical(name));
                if (p == null) {
                    p = props.get(canonicalEnv(name));
                }
                b.append(p != null ? resolve(p.value(), depth + 1) : colon < 0 ? "${" + inner + "}" : inner.substring(colon + 1));
                i = e + 1;
            }
            return b.toString();
        }
    }
}
