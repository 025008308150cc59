package dev.vitals.kubesim.lint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** L8's exemption table (docs/lint/L8.md, "Exemptions"): every entry, by port name and by number, checked through the linter. */
class WellKnownPortTest {
    /** A Deployment of {@code replicas} with one port, selected by a Service. */
    private static String pod(int replicas, String image, String port) {
        return Manifests.deployment("web", replicas, "        ports:\n        - " + port + "\n").replace("example/web:1.0", image)
                + Manifests.service("web", "");
    }

    private static List<String> rules(String yaml) {
        return Manifests.rules(Manifests.lint(yaml));
    }

    @ParameterizedTest(name = "{0}: name {1}, number {2}")
    @CsvSource({
        "METRICS, metrics, 9100", "METRICS, http-metrics, 9104", "METRICS, prometheus, 9121", "METRICS, prom, 9187",
        "METRICS, exporter, 9308", "METRICS, monitoring, 9419",
        "ADMIN, health, 0", "ADMIN, healthz, 0", "ADMIN, admin, 0", "ADMIN, management, 0", "ADMIN, debug, 0", "ADMIN, pprof, 0",
        "ADMIN, profiler, 0", "ADMIN, jmx, 0"})
    void aPortThatServesNoUsersIsExemptByNameAndByNumber(WellKnownPort row, String name, int number) {
        assertThat(WellKnownPort.ofPort(name, 8080)).hasValue(row);
        assertThat(rules(pod(3, "example/app:1", "{name: " + name + ", containerPort: 8080}"))).doesNotContain("L8");
        if (number > 0) {
            assertThat(WellKnownPort.ofPort("", number)).hasValue(row);
            assertThat(rules(pod(3, "example/app:1", "{containerPort: " + number + "}"))).doesNotContain("L8");
        }
    }

    @ParameterizedTest(name = "{0}: name {1}, number {2}, image {3}")
    @CsvSource({
        "POSTGRESQL, postgresql, 5432, postgres:16", "MYSQL, mysql, 3306, mariadb:11", "MONGODB, mongodb, 27017, mongo:7",
        "REDIS, redis, 6379, valkey/valkey:8", "CASSANDRA, cql, 9042, cassandra:5", "MEMCACHED, memcached, 11211, memcached:1.6",
        "ETCD, etcd, 2379, quay.io/coreos/etcd:v3.5", "ZOOKEEPER, zookeeper, 2181, zookeeper:3.9",
        "COCKROACHDB, cockroachdb, 26257, cockroachdb/cockroach:v24", "INFLUXDB, influxdb, 8086, influxdb:2",
        "NEO4J, bolt, 7687, neo4j:5", "COUCHDB, couchdb, 5984, couchdb:3", "ELASTICSEARCH, elasticsearch, 9200, opensearchproject/opensearch:2",
        "RABBITMQ, amqp, 5672, rabbitmq:3-management", "KAFKA, kafka, 9092, confluentinc/cp-kafka:7.6", "NATS, nats, 4222, nats:2.10"})
    void oneReplicaOfADatastoreOrBrokerIsExemptByPortNameNumberAndImage(WellKnownPort row, String name, int number, String image) {
        assertThat(WellKnownPort.ofPort(name, 8080)).hasValue(row);
        assertThat(WellKnownPort.ofPort("", number)).hasValue(row);
        assertThat(WellKnownPort.storeNamed(AppRuntime.imageName(image))).hasValue(row);
        assertThat(rules(pod(1, "example/app:1", "{name: " + name + ", containerPort: 1234}"))).doesNotContain("L8");
        assertThat(rules(pod(1, "example/app:1", "{containerPort: " + number + "}"))).doesNotContain("L8");
        assertThat(rules(pod(1, image, "{name: tcp, containerPort: 1234}"))).doesNotContain("L8");
        // three replicas: there are others to shed to, the finding stands
        assertThat(rules(pod(3, image, "{name: " + name + ", containerPort: " + number + "}"))).contains("L8");
    }

    @Test
    void aDatabaseNamedByItsSuffixIsExemptAsOneReplica() {
        assertThat(WellKnownPort.storeNamed("orders-db")).hasValue(WellKnownPort.DATABASE);
        assertThat(rules(pod(1, "example/orders-db:1", "{name: tcp, containerPort: 1234}"))).doesNotContain("L8");
        assertThat(rules(pod(3, "example/orders-db:1", "{name: tcp, containerPort: 1234}"))).contains("L8");
    }

    @Test
    void aServingPortIsNotExemptAndOneServingPortAmongMetricsOnesCounts() {
        assertThat(WellKnownPort.ofPort("http", 8080)).isEmpty();
        // a word, not a substring: "promo" is not "prom", "dbx" not "db"
        assertThat(WellKnownPort.ofPort("promo", 8080)).isEmpty();
        assertThat(WellKnownPort.storeNamed("example/dbx")).isEmpty();
        assertThat(rules(pod(3, "example/app:1", "{name: http, containerPort: 8080}"))).contains("L8");
        assertThat(rules(Manifests.deployment("web", 3, "        ports:\n        - {name: metrics, containerPort: 9100}\n"
                + "        - {name: http, containerPort: 8080}\n") + Manifests.service("web", ""))).contains("L8");
    }

    @Test
    void everyRowOfTheTableIsDocumentedInL8Md() throws java.io.IOException {
        String doc = java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "lint", "L8.md"));
        for (WellKnownPort p : WellKnownPort.values()) {
            assertThat(doc).as(p.name()).contains("| " + p.what() + " |");
            p.names().forEach(n -> assertThat(doc).as(p.name()).contains("`" + n + "`"));
            p.numbers().forEach(n -> assertThat(doc).as(p.name()).contains(String.valueOf(n)));
        }
    }
}
