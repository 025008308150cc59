package dev.vitals.kubesim.lint;

import static dev.vitals.kubesim.lint.Manifests.deployment;
import static dev.vitals.kubesim.lint.Manifests.lint;
import static dev.vitals.kubesim.lint.Manifests.only;
import static dev.vitals.kubesim.lint.Manifests.rules;
import static dev.vitals.kubesim.lint.Manifests.springProbes;
import static dev.vitals.kubesim.lint.Manifests.withApp;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The join of manifest and Spring Boot configuration (cases C10, C17, C18, C21, the seed incident). */
class AppConfigJoinTest {
    @TempDir
    Path dir;

    private AppConfig config(String name, String text, String... profiles) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        return AppConfig.load(List.of(f), Set.of(profiles));
    }

    @Test
    void probeGroupsWithoutDependenciesGiveNoFinding() throws Exception {
        AppConfig app = config("application.properties", "spring.datasource.url=jdbc:postgresql://db/app\n"
                + "management.endpoint.health.probes.enabled=true\n");
        LintReport r = lint(deployment(springProbes("/actuator/health/liveness", "/actuator/health/readiness")), withApp(app));
        assertThat(r.findings()).isEmpty();
    }

    @Test
    void c10LivenessGroupIncludingTheDatabaseIsAnError() throws Exception {
        // case C10: liveness included external storage
        AppConfig app = config("application.yaml", "spring:\n  datasource:\n    url: jdbc:postgresql://db/app\n"
                + "management:\n  endpoint:\n    health:\n      group:\n        liveness:\n"
                + "          include: livenessState,db\n");
        Finding f = only(lint(deployment(springProbes("/actuator/health/liveness", "/actuator/health/readiness")),
                withApp(app)), "L10");
        assertThat(f.severity()).isEqualTo(Severity.ERROR);
        assertThat(f.message()).contains("Actuator group 'liveness'").contains("dependency check db");
        assertThat(f.line()).isEqualTo(19);
        // without --app-config the same manifest is clean
        assertThat(rules(lint(deployment(springProbes("/actuator/health/liveness", "/actuator/health/readiness")))))
                .doesNotContain("L10");
    }

    @Test
    void c17AGroupGivenAnAdditionalPathWithoutIncludeWidensToEveryIndicator() throws Exception {
        // case C17: one extra property and no include; the mail starter is on the classpath
        AppConfig app = config("application.yaml", "spring:\n  mail:\n    host: smtp.example.com\n"
                + "management:\n  endpoint:\n    health:\n      probes:\n        enabled: true\n      group:\n        liveness:\n"
                + "          additional-path: \"server:/livez\"\n");
        LintReport r = lint(deployment(springProbes("/livez", "/actuator/health/readiness")), withApp(app));
        Finding widened = only(r, "L11");
        assertThat(widened.file()).isEqualTo(dir.resolve("application.yaml").toString());
        assertThat(widened.line()).isEqualTo(11);
        assertThat(widened.message()).contains("'liveness'").contains("without include").contains("mail");
        assertThat(widened.fix()).contains("management.endpoint.health.group.liveness.include=livenessState");
        assertThat(only(r, "L10").message()).contains("mail").contains("every indicator");
        // with include the additional path is harmless
        AppConfig fixed = config("fixed.yaml", "spring:\n  mail:\n    host: smtp.example.com\n"
                + "management.endpoint.health.group.liveness:\n  include: livenessState\n  additional-path: \"server:/livez\"\n");
        assertThat(lint(deployment(springProbes("/livez", "/actuator/health/readiness")), withApp(fixed)).findings()).isEmpty();
    }

    @Test
    void c18LivenessPointedAtTheReadinessGroup() throws Exception {
        // case C18: readiness holds the search cluster; the chart points liveness at it
        AppConfig app = config("application.properties", "spring.elasticsearch.uris=http://search:9200\n"
                + "management.endpoint.health.group.readiness.include=readinessState,elasticsearch\n");
        LintReport r = lint(deployment("web", 1, springProbes("/actuator/health/readiness", "/actuator/health/readiness")),
                withApp(app));
        assertThat(only(r, "L12").message()).contains("Actuator group 'readiness'");
        assertThat(only(r, "L10").message()).contains("elasticsearch");
        assertThat(rules(r)).contains("L1");
    }

    @Test
    void c18AProfileWithoutProbeGroupsAnswers404() throws Exception {
        AppConfig app = config("application.yaml", "server:\n  port: 8080\n---\nspring:\n  config:\n    activate:\n"
                + "      on-profile: local\nmanagement:\n  endpoint:\n    health:\n      probes:\n        enabled: false\n", "local");
        LintReport r = lint(deployment(springProbes("/actuator/health/liveness", "/actuator/health/readiness")), withApp(app));
        assertThat(rules(r)).containsExactly("L14", "L14");
        Finding f = r.findings().get(0);
        assertThat(r.findings().get(1).message()).contains("never becomes Ready");
        assertThat(f.message()).contains("'liveness'").contains("404").contains("enabled=false");
        assertThat(rules(lint(deployment(springProbes("/actuator/health/liveness", "/actuator/health/readiness")),
                withApp(AppConfig.load(app.files(), Set.of("prod")))))).doesNotContain("L14");
    }

    @Test
    void managementPortDecidesWhichPortServesActuator() throws Exception {
        AppConfig app = config("application.properties", "management.server.port=9090\nspring.data.redis.host=cache\n"
                + "management.endpoint.health.group.liveness.include=livenessState,redis\n");
        String onMgmt = "        livenessProbe:\n          httpGet: {path: /actuator/health/liveness, port: 9090}\n"
                + "        readinessProbe:\n          httpGet: {path: /actuator/health/readiness, port: 9090}\n";
        assertThat(only(lint(deployment(onMgmt), withApp(app)), "L10").message()).contains(":9090").contains("redis");
        // on the app port that path is not Actuator's: no join, no finding
        assertThat(rules(lint(deployment(onMgmt.replace("9090", "8080")), withApp(app)))).doesNotContain("L10");
        // management.server.base-path prefixes it on its own port
        AppConfig based = config("based.properties", "management.server.port=9090\nmanagement.server.base-path=/manage\n"
                + "spring.data.redis.host=cache\nmanagement.endpoint.health.group.liveness.include=livenessState,redis\n");
        assertThat(rules(lint(deployment(onMgmt.replace("/actuator/health/liveness", "/manage/actuator/health/liveness")),
                withApp(based)))).contains("L10");
    }

    @Test
    void profilesPickDocumentsAndSiblingFiles() throws Exception {
        Files.writeString(dir.resolve("application-prod.properties"),
                "management.endpoint.health.group.liveness.include=livenessState,db\nspring.datasource.url=jdbc:x\n");
        AppConfig base = config("application.properties", "spring.profiles.active=dev\n#---\n"
                + "spring.config.activate.on-profile=dev\nserver.port=8080\n");
        String m = deployment(springProbes("/actuator/health/liveness", "/actuator/health/readiness"));
        assertThat(rules(lint(m, withApp(base)))).doesNotContain("L10");
        assertThat(rules(lint(m, withApp(AppConfig.load(base.files(), Set.of("prod")))))).contains("L10");
        // the manifest's SPRING_PROFILES_ACTIVE picks the profile when --profile is not given
        String withEnv = m.replace("        ports:\n", "        env:\n        - {name: SPRING_PROFILES_ACTIVE, value: prod}\n"
                + "        ports:\n");
        assertThat(rules(lint(withEnv, withApp(base)))).contains("L10");
    }

    @Test
    void theContainersEnvironmentAndArgumentsOverrideTheFiles() throws Exception {
        AppConfig app = config("application.yaml", "spring.data.redis.host: cache\n");
        // the PetClinic shape: Spring settings through SPRING_APPLICATION_JSON
        String json = deployment("        env:\n        - name: SPRING_APPLICATION_JSON\n          value: |\n"
                + "            {\"management.endpoint.health.group.liveness.include\": \"livenessState,redis\","
                + " \"management.endpoint.health.probes.add-additional-paths\": true}\n"
                + springProbes("/livez", "/readyz"));
        assertThat(only(lint(json, withApp(app)), "L10").message()).contains("redis").contains("additional path");
        String envVar = deployment("        env:\n        - {name: MANAGEMENT_ENDPOINT_HEALTH_GROUP_LIVENESS_INCLUDE,"
                + " value: 'livenessState,redis'}\n" + springProbes("/actuator/health/liveness", "/actuator/health/readiness"));
        assertThat(rules(lint(envVar, withApp(app)))).contains("L10");
        String args = deployment("        args: ['--management.server.port=9000']\n"
                + springProbes("/actuator/health/liveness", "/actuator/health/readiness"));
        AppConfig dep = config("dep.yaml", "spring.data.redis.host: cache\nmanagement.endpoint.health.group.liveness.include:"
                + " livenessState,redis\n");
        assertThat(rules(lint(args, withApp(dep)))).doesNotContain("L10");
        assertThat(rules(lint(args.replace("9000", "8080"), withApp(dep)))).contains("L10");
    }

    @Test
    void l4OnSeparateEndpointsSuggestsTakingTheDependencyOutOfLivenessNotSeparatingThem() throws Exception {
        // found by QA: L4's fix said "separate the endpoints (L1)" for /actuator/health/liveness vs /readiness
        AppConfig app = config("application.yaml", "spring:\n  datasource:\n    url: jdbc:postgresql://db/app\n"
                + "management:\n  endpoint:\n    health:\n      group:\n        liveness:\n"
                + "          include: livenessState,db\n");
        // readiness sheds no sooner than liveness kills (both 3 × 10 s)
        Finding f = only(lint(deployment(springProbes("/actuator/health/liveness", "/actuator/health/readiness")
                .replace("periodSeconds: 5", "periodSeconds: 10")), withApp(app)), "L4");
        assertThat(f.fix()).endsWith("; better, take db out of what liveness checks (L10), so an outage only sheds traffic")
                .doesNotContain("separate the endpoints");
        // on one endpoint the finding is L1's, whose fix separates them; L4 does not repeat it
        LintReport one = lint(deployment(springProbes("/actuator/health", "/actuator/health")
                .replace("periodSeconds: 5", "periodSeconds: 10")));
        assertThat(only(one, "L1").fix()).contains("/actuator/health/liveness");
        assertThat(Manifests.rules(one)).doesNotContain("L4");
    }

    @Test
    void l9SuggestsTheSettingsOfWhatTheApplicationHas() throws Exception {
        // found by QA: L9 suggested vitals.checks.* to an application that has only Actuator
        String probes = springProbes("/actuator/health/liveness", "/actuator/health/readiness");
        AppConfig actuator = config("application.properties", "spring.data.redis.host=cache\n"
                + "management.endpoint.health.group.readiness.include=readinessState,redis\n");
        Finding a = only(lint(deployment("web", 6, probes), withApp(actuator)), "L9");
        assertThat(a.fix()).startsWith("take redis out of the Actuator group 'readiness'"
                + " (management.endpoint.health.group.readiness.exclude=redis,").doesNotContain("vitals.");
        AppConfig whole = config("whole.properties", "spring.data.redis.host=cache\n");
        Finding w = only(lint(deployment("web", 6, springProbes("/actuator/health/liveness", "/actuator/health")),
                withApp(whole)), "L9");
        assertThat(w.fix()).startsWith("point readinessProbe at a readiness group without redis").doesNotContain("vitals.");
        AppConfig vitals = config("vitals.properties", "spring.data.redis.host=cache\nvitals.server.port=8081\n"
                + "management.endpoint.health.group.readiness.include=readinessState,redis\n");
        Finding v = only(lint(deployment("web", 6, probes), withApp(vitals)), "L9");
        assertThat(v.fix()).contains("vitals.checks.redis.critical=false");
    }

    @Test
    void c21CriticalSharedDependencyInReadinessWithSeveralReplicas() throws Exception {
        // case C21: 6 replicas, readiness includes one shared cache
        AppConfig app = config("application.properties", "spring.data.redis.host=cache\n"
                + "management.endpoint.health.group.readiness.include=readinessState,redis\n");
        String probes = springProbes("/actuator/health/liveness", "/actuator/health/readiness");
        Finding f = only(lint(deployment("web", 6, probes), withApp(app)), "L9");
        assertThat(f.message()).contains("redis").contains("6 replicas");
        assertThat(rules(lint(deployment("web", 1, probes), withApp(app)))).doesNotContain("L9");
        // Vitals: the check marked non-critical degrades instead of shedding
        AppConfig vitals = config("vitals.properties", "spring.data.redis.host=cache\n"
                + "management.endpoint.health.group.readiness.include=readinessState,redis\nvitals.checks.redis.critical=false\n");
        assertThat(rules(lint(deployment("web", 6, probes), withApp(vitals)))).doesNotContain("L9");
    }

    @Test
    void seedIncidentProbesOnTheAppPortWhileVitalsPortIsThere() throws Exception {
        AppConfig app = config("application.properties", "server.port=8080\nserver.tomcat.threads.max=40\n"
                + "vitals.server.port=8081\n");
        LintReport r = lint(deployment(springProbes("/actuator/health/liveness", "/actuator/health/readiness")), withApp(app));
        assertThat(rules(r)).containsExactly("L13", "L13");
        assertThat(r.findings().get(0).message()).contains("40 workers (server.tomcat.threads.max)");
        assertThat(r.findings().get(0).fix()).contains("path: /livez, port: 8081");
        String onVitals = "        livenessProbe:\n          httpGet: {path: /livez, port: 8081}\n"
                + "        readinessProbe:\n          httpGet: {path: /readyz, port: 8081}\n";
        assertThat(lint(deployment(onVitals), withApp(app)).findings()).isEmpty();
        // without Vitals there is no better port to suggest: no finding
        AppConfig plain = config("plain.properties", "server.port=8080\n");
        assertThat(rules(lint(deployment(springProbes("/actuator/health/liveness", "/actuator/health/readiness")),
                withApp(plain)))).doesNotContain("L13");
    }

    @Test
    void vitalsCheckGroupsDecideWhatVitalsLivenessHolds() throws Exception {
        AppConfig app = config("application.yaml", "vitals:\n  server:\n    port: 8081\n  checks:\n    db:\n"
                + "      groups: [liveness, readiness]\nspring.datasource.url: jdbc:x\n");
        String onVitals = "        livenessProbe:\n          httpGet: {path: /livez, port: 8081}\n"
                + "        readinessProbe:\n          httpGet: {path: /readyz, port: 8081}\n";
        Finding f = only(lint(deployment(onVitals), withApp(app)), "L10");
        assertThat(f.message()).contains("Vitals /livez").contains("db");
        assertThat(f.fix()).contains("vitals.checks.<name>.groups=readiness");
    }

    @Test
    void badConfigFilesAreOneLineErrors() throws Exception {
        assertThatThrownBy(() -> AppConfig.load(List.of(dir.resolve("missing.yaml")), Set.of()))
                .isInstanceOf(dev.vitals.kubesim.input.InvalidInputException.class).hasMessageContaining("no such file");
        Path txt = dir.resolve("app.txt");
        Files.writeString(txt, "x=1");
        assertThatThrownBy(() -> AppConfig.load(List.of(txt), Set.of())).hasMessageContaining(".yaml, .yml or .properties");
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "a: [\n");
        assertThatThrownBy(() -> AppConfig.load(List.of(bad), Set.of())).hasMessageContaining("bad.yaml")
                .hasMessageContaining("not valid YAML");
    }

    @Test
    void aYamlKeyWrittenTwiceIsRefusedAsSpringBootRefusesIt() throws Exception {
        // found by QA: manifests reject a key written twice, app-config YAML kept the last one without a word;
        // Spring Boot's YAML loader refuses it at startup (DuplicateKeyException)
        Path twice = dir.resolve("application.yaml");
        Files.writeString(twice, "management:\n  endpoint:\n    health:\n      probes:\n        enabled: true\n"
                + "management:\n  server:\n    port: 9090\n");
        assertThatThrownBy(() -> AppConfig.load(List.of(twice), Set.of())).isInstanceOf(dev.vitals.kubesim.input.InvalidInputException.class)
                .hasMessage(twice + ":6: key 'management' is written twice in one mapping (lines 1 and 6): YAML keys are"
                        + " unique, and strict readers reject it (the API server: duplicate field; Spring Boot refuses to"
                        + " start); keep one 'management' (merge the two)");
        // a merge key is no duplicate, as in manifests
        AppConfig merged = config("merged.yaml", "base: &b {port: 8081}\nmanagement:\n  server:\n    <<: *b\n    port: 9090\n");
        assertThat(merged.view(Map.of(), List.of()).value("management.server.port")).contains("9090");
    }

    @Test
    void aPropertiesKeyWrittenTwiceKeepsTheLastAsSpringDoes() throws Exception {
        // Spring Boot's OriginTrackedPropertiesLoader puts each line into a map: the last line wins, no error
        AppConfig app = config("application.properties", "management.server.port=9090\nserver.port=8080\n"
                + "management.server.port=9091\n");
        AppConfig.View v = app.view(Map.of(), List.of());
        assertThat(v.value("management.server.port")).contains("9091");
        assertThat(v.get("management.server.port").orElseThrow().line()).isEqualTo(3);
    }

    @Test
    void propertiesSyntaxContinuationsEscapesAndPlaceholders() throws Exception {
        AppConfig app = config("application.properties", "server.port = ${PORT:9000}\n"
                + "management.endpoint.health.group.liveness.include=livenessState,\\\n    db\nspring.datasource.url:jdbc:x\n");
        AppConfig.View v = app.view(Map.of(), List.of());
        assertThat(v.value("server.port")).contains("9000");
        assertThat(v.value("management.endpoint.health.group.liveness.include")).contains("livenessState,db");
        assertThat(app.view(Map.of("PORT", "7000"), List.of()).value("server.port")).contains("7000");
    }

    @Test
    void l25ActuatorProbesBehindAResourceServerChainSayWhatIsUnknown() throws Exception {
        // issue 40: the kubelet sends no token; Boot's resource-server chain requires one on every request
        AppConfig app = config("application.yaml", "spring:\n  security:\n    oauth2:\n      resourceserver:\n        jwt:\n"
                + "          issuer-uri: https://idp.example.com/realms/shop\n");
        Finding f = only(lint(deployment(springProbes("/actuator/health/liveness", "/actuator/health/readiness")),
                withApp(app)), "L25");
        assertThat(f.message()).contains("spring.security.oauth2.resourceserver.jwt.issuer-uri").contains("401")
                .contains("unknown");
        assertThat(f.fix()).contains("permitAll");
        // no resource server configured: nothing to say (Boot's default chain permits the health endpoint)
        AppConfig plain = config("application.yaml", "spring:\n  security:\n    user:\n      name: admin\n");
        assertThat(Manifests.rules(lint(deployment(springProbes("/actuator/health/liveness", "/actuator/health/readiness")),
                withApp(plain)))).doesNotContain("L25");
    }
}
