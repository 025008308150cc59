package dev.vitals.kubesim.lint;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The one table of L8's exemptions (docs/lint/L8.md, "Exemptions"): ports known by name or
 * number, each either serving no user traffic (metrics, health, admin, debug) or belonging to a
 * datastore or broker that demos run as one replica. A name matches a word of the port's name
 * (words split at {@code - _ .}: {@code http-metrics} is {@code metrics}); for a datastore or
 * broker, a word of the container's name or image ({@code confluentinc/cp-kafka:7.6} is
 * {@code kafka}) matches too. Immutable.
 */
enum WellKnownPort {
    /** Prometheus metrics; numbers from Prometheus' exporter port allocations. */
    METRICS(Use.NOT_SERVING, "Prometheus metrics or an exporter", List.of("metrics", "prometheus", "prom", "exporter", "monitoring"),
            List.of(9100, 9104, 9121, 9187, 9308, 9419)),
    /** Health, admin and debug endpoints: scraped or read by operators, not by users. */
    ADMIN(Use.NOT_SERVING, "health, admin or debug", List.of("health", "healthz", "admin", "management", "debug", "pprof", "profiler", "jmx"),
            List.of()),
    POSTGRESQL(Use.ONE_REPLICA_STORE, "PostgreSQL", List.of("postgres", "postgresql", "pgsql"), List.of(5432)),
    MYSQL(Use.ONE_REPLICA_STORE, "MySQL, MariaDB", List.of("mysql", "mariadb"), List.of(3306)),
    MONGODB(Use.ONE_REPLICA_STORE, "MongoDB", List.of("mongo", "mongodb"), List.of(27017)),
    REDIS(Use.ONE_REPLICA_STORE, "Redis, Valkey", List.of("redis", "valkey"), List.of(6379)),
    CASSANDRA(Use.ONE_REPLICA_STORE, "Cassandra", List.of("cassandra", "cql"), List.of(9042)),
    MEMCACHED(Use.ONE_REPLICA_STORE, "Memcached", List.of("memcached"), List.of(11211)),
    ETCD(Use.ONE_REPLICA_STORE, "etcd", List.of("etcd"), List.of(2379)),
    ZOOKEEPER(Use.ONE_REPLICA_STORE, "ZooKeeper", List.of("zookeeper"), List.of(2181)),
    COCKROACHDB(Use.ONE_REPLICA_STORE, "CockroachDB", List.of("cockroach", "cockroachdb"), List.of(26257)),
    INFLUXDB(Use.ONE_REPLICA_STORE, "InfluxDB", List.of("influxdb"), List.of(8086)),
    NEO4J(Use.ONE_REPLICA_STORE, "Neo4j", List.of("neo4j", "bolt"), List.of(7687)),
    COUCHDB(Use.ONE_REPLICA_STORE, "CouchDB", List.of("couchdb"), List.of(5984)),
    ELASTICSEARCH(Use.ONE_REPLICA_STORE, "Elasticsearch, OpenSearch", List.of("elasticsearch", "opensearch"), List.of(9200)),
    RABBITMQ(Use.ONE_REPLICA_STORE, "RabbitMQ", List.of("rabbitmq", "amqp"), List.of(5672)),
    KAFKA(Use.ONE_REPLICA_STORE, "Kafka", List.of("kafka"), List.of(9092)),
    NATS(Use.ONE_REPLICA_STORE, "NATS", List.of("nats"), List.of(4222)),
    /** A database by its conventional name suffix ({@code orders-db}); no port number of its own. */
    DATABASE(Use.ONE_REPLICA_STORE, "a database named *-db", List.of("db"), List.of());

    /** What a port of the row is for. */
    enum Use {
        /** Scraped or read by operators: a Service for it does not need the pod Ready. */
        NOT_SERVING,
        /** A datastore or broker: as one replica there is nothing to shed its traffic to. */
        ONE_REPLICA_STORE
    }

    private final Use use;
    private final String what;
    private final Set<String> names;
    private final Set<Integer> numbers;

    WellKnownPort(Use use, String what, List<String> names, List<Integer> numbers) {
        this.use = use;
        this.what = what;
        this.names = Set.copyOf(names);
        this.numbers = Set.copyOf(numbers);
    }

    /** @return what the row is for */
    Use use() {
        return use;
    }

    /** @return what it is, for the docs and messages */
    String what() {
        return what;
    }

    /** @return the port names (words) of the row */
    Set<String> names() {
        return names;
    }

    /** @return the well-known port numbers of the row; empty when it has none */
    Set<Integer> numbers() {
        return numbers;
    }

    /**
     * @param name a port's name (may be empty)
     * @param number a port's number (0 when absent)
     * @return the row of a port, by a word of its name or by its number
     */
    static Optional<WellKnownPort> ofPort(String name, int number) {
        for (WellKnownPort p : values()) {
            if (p.numbers.contains(number) || hasWord(name, p.names)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** @return the datastore or broker row a container or image name names by one of its words */
    static Optional<WellKnownPort> storeNamed(String name) {
        for (WellKnownPort p : values()) {
            if (p.use == Use.ONE_REPLICA_STORE && hasWord(name, p.names)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    private static boolean hasWord(String name, Set<String> words) {
        for (String w : name.toLowerCase(Locale.ROOT).split("[-_./:@]")) {
            if (words.contains(w)) {
                return true;
            }
        }
        return false;
    }
}
