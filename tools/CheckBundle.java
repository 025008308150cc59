import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPath;
import javax.xml.xpath.XPathFactory;
import org.w3c.dom.Document;

/**
 * Checks the release bundle that {@code mvn -Prelease verify} writes (vitals-release/target/vitals-VERSION-bundle.zip)
 * against what the Central Portal accepts: groupId path/artifactId/version/files, an .md5 and a .sha1 of every
 * file that match it, the main, sources and Javadoc jars and an SBOM for every jar module, every POM carrying
 * the required fields (name, description, url, licenses, scm, developers, issueManagement; inherited ones read
 * from the parent POM in the bundle), and the published set: exactly the root reactor's modules that do not set
 * maven.deploy.skip, plus vitals-parent.
 *
 * <p>Run from the repository root: {@code java tools/CheckBundle.java vitals-release/target/vitals-0.1.0-SNAPSHOT-bundle.zip}.
 * Prints one line per problem and exits 1 if there is any, 2 on bad usage, 0 with a summary otherwise.
 */
public final class CheckBundle {
    private static final String GROUP_PATH = "dev/vitals/";
    private static final List<String> REQUIRED = List.of("name", "description", "url", "licenses/license/name",
            "licenses/license/url", "scm/url", "scm/connection", "developers/developer/name", "issueManagement/url");
    private static final List<String> INHERITED = List.of("url", "licenses/license/name", "licenses/license/url",
            "scm/url", "scm/connection", "developers/developer/name", "issueManagement/url");

    private final List<String> problems = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        if (args.length != 1 || !Files.isRegularFile(Path.of(args[0]))) {
            System.err.println("usage: java tools/CheckBundle.java BUNDLE.zip (from the repository root)");
            System.exit(2);
        }
        CheckBundle check = new CheckBundle();
        String summary = check.run(Path.of(args[0]), Path.of("."));
        check.problems.forEach(p -> System.out.println("bundle: " + p));
        if (!check.problems.isEmpty()) {
            System.out.println("bundle: " + check.problems.size() + " problem(s) in " + args[0]);
            System.exit(1);
        }
        System.out.println("bundle: ok, " + summary);
    }

    private String run(Path zip, Path root) throws Exception {
        Map<String, byte[]> files = new TreeMap<>();
        try (ZipFile z = new ZipFile(zip.toFile())) {
            for (ZipEntry e : java.util.Collections.list(z.entries())) {
                if (!e.isDirectory()) {
                    files.put(e.getName(), z.getInputStream(e).readAllBytes());
                }
            }
        }
        // artifactId -> version -> file names
        Map<String, Map<String, TreeSet<String>>> layout = new TreeMap<>();
        for (String name : files.keySet()) {
            String[] p = name.split("/");
            if (!name.startsWith(GROUP_PATH) || p.length != 5) {
                problems.add(name + ": not groupId-path/artifactId/version/file (dev/vitals/A/V/F)");
                continue;
            }
            String a = p[2], v = p[3], f = p[4];
            layout.computeIfAbsent(a, k -> new TreeMap<>()).computeIfAbsent(v, k -> new TreeSet<>()).add(f);
            if (!f.startsWith(a + "-" + v)) {
                problems.add(name + ": file name does not start with " + a + "-" + v);
            }
            if (f.endsWith(".md5") || f.endsWith(".sha1")) {
                String of = name.substring(0, name.lastIndexOf('.'));
                String algo = f.endsWith(".md5") ? "MD5" : "SHA-1";
                if (!files.containsKey(of)) {
                    problems.add(name + ": checksum of a missing file");
                } else if (!new String(files.get(name), StandardCharsets.US_ASCII).trim().startsWith(hex(algo, files.get(of)))) {
                    problems.add(name + ": does not match " + of);
                }
            } else if (!f.endsWith(".asc")) {
                for (String ext : List.of(".md5", ".sha1")) {
                    if (!files.containsKey(name + ext)) {
                        problems.add(name + ": no " + ext);
                    }
                }
            }
        }
        boolean signed = files.keySet().stream().anyMatch(n -> n.endsWith(".asc"));
        if (signed) {
            for (String n : files.keySet()) {
                if (!n.endsWith(".asc") && !n.endsWith(".md5") && !n.endsWith(".sha1") && !files.containsKey(n + ".asc")) {
                    problems.add(n + ": signed bundle, but no " + n + ".asc");
                }
            }
        }

        // The published set: the reactor's modules without maven.deploy.skip, plus the parent.
        Map<String, Boolean> expected = new LinkedHashMap<>();
        expected.put("vitals-parent", true);
        Document rootPom = parse(Files.readAllBytes(root.resolve("pom.xml")));
        XPath x = XPathFactory.newInstance().newXPath();
        var modules = (org.w3c.dom.NodeList) x.evaluate("/project/modules/module | /project/profiles/profile/modules/module", rootPom, javax.xml.xpath.XPathConstants.NODESET);
        for (int i = 0; i < modules.getLength(); i++) {
            Document m = parse(Files.readAllBytes(root.resolve(modules.item(i).getTextContent().trim()).resolve("pom.xml")));
            String a = x.evaluate("/project/artifactId", m);
            expected.put(a, !"true".equals(x.evaluate("/project/properties/maven.deploy.skip", m).trim()));
        }
        String version = x.evaluate("/project/version", rootPom).trim();
        int jars = 0;
        for (var e : expected.entrySet()) {
            String a = e.getKey();
            Map<String, TreeSet<String>> versions = layout.get(a);
            if (!e.getValue()) {
                if (versions != null) {
                    problems.add(a + ": in the bundle, but its POM sets maven.deploy.skip (not published)");
                }
                continue;
            }
            if (versions == null || !versions.containsKey(version)) {
                problems.add(a + ": published module missing from the bundle (dev/vitals/" + a + "/" + version + "/)");
                continue;
            }
            if (versions.size() != 1) {
                problems.add(a + ": more than one version " + versions.keySet());
            }
            String dir = GROUP_PATH + a + "/" + version + "/";
            String base = a + "-" + version;
            byte[] pomBytes = files.get(dir + base + ".pom");
            if (pomBytes == null) {
                problems.add(a + ": no " + base + ".pom");
                continue;
            }
            Document pom = parse(pomBytes);
            checkPom(a, version, pom, files.get(GROUP_PATH + "vitals-parent/" + version + "/vitals-parent-" + version + ".pom"));
            String packaging = x.evaluate("/project/packaging", pom).trim();
            if (packaging.isEmpty() || packaging.equals("jar") || packaging.equals("maven-plugin")) {
                jars++;
                for (String f : List.of(".jar", "-sources.jar", "-javadoc.jar", "-cyclonedx.json")) {
                    byte[] b = files.get(dir + base + f);
                    if (b == null || b.length == 0) {
                        problems.add(a + ": no " + base + f);
                    }
                }
                if (a.equals("vitals-agent") && files.get(dir + base + "-agent.jar") == null) {
                    problems.add(a + ": no " + base + "-agent.jar (the -javaagent jar, classifier agent)");
                }
                checkJarHas(a, files.get(dir + base + "-sources.jar"), ".java", "sources");
                checkJarHas(a, files.get(dir + base + "-javadoc.jar"), "index.html", "javadoc");
                checkJarHas(a, files.get(dir + base + ".jar"), ".class", "main");
                if (packaging.equals("maven-plugin")) { // vitals-maven-plugin: the descriptor Maven reads its goals from
                    checkJarHas(a, files.get(dir + base + ".jar"), "META-INF/maven/plugin.xml", "plugin descriptor");
                }
            }
        }
        for (String a : layout.keySet()) {
            if (!expected.containsKey(a)) {
                problems.add(a + ": in the bundle but not a module of the root reactor");
            }
        }
        return layout.size() + " artifacts (" + jars + " jar modules), " + files.size() + " files, version " + version
                + (signed ? ", signed" : ", unsigned");
    }

    private void checkPom(String a, String version, Document pom, byte[] parentBytes) throws Exception {
        XPath x = XPathFactory.newInstance().newXPath();
        if (!a.equals(x.evaluate("/project/artifactId", pom).trim())) {
            problems.add(a + ": POM artifactId is " + x.evaluate("/project/artifactId", pom));
        }
        String group = x.evaluate("/project/groupId", pom).trim();
        String v = x.evaluate("/project/version", pom).trim();
        boolean hasParent = !x.evaluate("/project/parent/artifactId", pom).isBlank();
        if (hasParent && !"vitals-parent".equals(x.evaluate("/project/parent/artifactId", pom).trim())) {
            problems.add(a + ": parent is not vitals-parent");
        }
        if (group.isEmpty() && hasParent) {
            group = x.evaluate("/project/parent/groupId", pom).trim();
        }
        if (v.isEmpty() && hasParent) {
            v = x.evaluate("/project/parent/version", pom).trim();
        }
        if (!"dev.vitals".equals(group) || !version.equals(v)) {
            problems.add(a + ": coordinates " + group + ":" + a + ":" + v + " do not match the path");
        }
        Document parent = hasParent && parentBytes != null ? parse(parentBytes) : null;
        for (String field : REQUIRED) {
            String own = x.evaluate("/project/" + field, pom).trim();
            if (own.isEmpty() && parent != null && INHERITED.contains(field)) {
                own = x.evaluate("/project/" + field, parent).trim();
            }
            if (own.isEmpty()) {
                problems.add(a + ": POM has no " + field + (INHERITED.contains(field) ? " (own or vitals-parent's)" : ""));
            } else if (own.contains("${") && !own.startsWith("${vitals.repository}") && !own.startsWith("scm:git:${vitals.repository}")) {
                problems.add(a + ": POM " + field + " is an unresolved expression: " + own);
            }
        }
    }

    private void checkJarHas(String a, byte[] jar, String suffix, String what) throws IOException {
        if (jar == null) {
            return;
        }
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(jar))) {
            for (ZipEntry e; (e = in.getNextEntry()) != null; ) {
                if (e.getName().endsWith(suffix)) {
                    return;
                }
            }
        }
        problems.add(a + ": " + what + " jar has no *" + suffix);
    }

    private static Document parse(byte[] xml) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(false);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(xml));
    }

    private static String hex(String algo, byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance(algo).digest(data));
    }
}
