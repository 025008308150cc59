package dev.vitals.demo;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import org.h2.tools.Server;

/**
 * The demo's database: an embedded H2 database served by an H2 TCP server on 127.0.0.1, and a
 * small HikariCP pool that reaches a database through a JDBC URL (by default the embedded
 * server; {@code --db-url} points it elsewhere, e.g. at a fault proxy in front of the server).
 *
 * <p>Every access, migrations and health checks included, goes through the pool and so
 * through the URL: a proxy that cuts or blackholes the TCP port really cuts the service off.
 * Every access is bounded: getting a connection waits at most {@code --db-timeout-ms}, and an
 * H2 TCP URL gets {@code NETWORK_TIMEOUT} (a socket read timeout) of the same length unless it
 * sets one (a PostgreSQL URL gets {@code socketTimeout} and {@code connectTimeout}).
 *
 * <p>Thread-safe.
 */
final class Database implements AutoCloseable {
    static final int COST_CENTERS = 100;
    static final int ORDERS = 1_000;
    /** Read timeout of the migration connection. */
    static final Duration MIGRATION_TIMEOUT = Duration.ofSeconds(30);

    private final Server server;
    private final Connection keeper;
    private final HikariDataSource pool;
    private final String url;
    private final Duration timeout;
    private final String user;
    private final String password;

    private Database(Server server, Connection keeper, HikariDataSource pool, String url, DemoOptions o) {
        this.server = server;
        this.keeper = keeper;
        this.pool = pool;
        this.url = url;
        this.timeout = o.dbTimeout();
        this.user = o.dbUser();
        this.password = o.dbPassword();
    }

    /**
     * Starts the embedded H2 TCP server on 127.0.0.1 and creates the pool; does not connect
     * (the pool connects lazily, so an unreachable URL does not fail here).
     *
     * @throws SQLException if the H2 server cannot start (e.g. its port is taken)
     */
    static Database start(DemoOptions o) throws SQLException {
        // Loopback only: read once when H2's SysProperties class initialises.
        System.setProperty("h2.bindAddress", "127.0.0.1");
        String dbName = o.dbName();
        // The keeper connection creates the in-memory database and keeps it alive; remote
        // clients cannot create databases (no -ifNotExists).
        Connection keeper = DriverManager.getConnection("jdbc:h2:mem:" + dbName + ";DB_CLOSE_DELAY=-1", "sa", "");
        Server server;
        try {
            server = Server.createTcpServer("-tcpPort", Integer.toString(o.dbPort())).start();
        } catch (SQLException e) {
            keeper.close();
            throw new SQLException("cannot start the H2 TCP server on 127.0.0.1:" + o.dbPort() + ": " + e.getMessage(), e);
        }
        String url = o.dbUrl().orElse("jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/mem:" + dbName);
        HikariDataSource pool = new HikariDataSource(hikariConfig(o, url));
        return new Database(server, keeper, pool, url, o);
    }

    static HikariConfig hikariConfig(DemoOptions o, String rawUrl) {
        long timeoutMs = o.dbTimeout().toMillis();
        HikariConfig c = new HikariConfig();
        c.setPoolName("demo-db");
        c.setJdbcUrl(boundedUrl(rawUrl, timeoutMs));
        c.setUsername(o.dbUser());
        c.setPassword(o.dbPassword());
        c.setMaximumPoolSize(o.dbPoolSize());
        c.setMinimumIdle(o.dbPoolSize()); // a fixed-size pool, filled at start: a burst never waits for new connections
        c.setConnectionTimeout(timeoutMs);
        c.setValidationTimeout(Math.max(250, timeoutMs / 2));
        c.setInitializationFailTimeout(-1); // start even when the database is unreachable
        c.setExceptionOverrideClassName(EvictBrokenConnections.class.getName());
        if (rawUrl.startsWith("jdbc:postgresql:")) {
            String secs = Long.toString(Math.max(1, (timeoutMs + 999) / 1000));
            c.addDataSourceProperty("socketTimeout", secs);
            c.addDataSourceProperty("connectTimeout", secs);
            c.addDataSourceProperty("loginTimeout", secs);
        }
        return c;
    }

    /** Adds H2's socket read timeout to an H2 TCP URL that does not set one. */
    static String boundedUrl(String url, long timeoutMs) {
        boolean h2Remote = url.startsWith("jdbc:h2:tcp:") || url.startsWith("jdbc:h2:ssl:");
        if (!h2Remote || url.toUpperCase(Locale.ROOT).contains("NETWORK_TIMEOUT=")) {
            return url;
        }
        return url + ";NETWORK_TIMEOUT=" + timeoutMs;
    }

    /** @return the port the embedded H2 TCP server listens on (127.0.0.1) */
    int serverPort() {
        return server.getPort();
    }

    /**
     * Creates and fills the schema if it is missing (portable SQL: H2 and PostgreSQL).
     *
     * @throws SQLException if the database cannot be reached or the statements fail
     */
    void migrate() throws SQLException {
        // Its own connection, through the same URL, with a longer read timeout than the pool's:
        // the seed batch can take more than a second on a loaded machine.
        Properties props = new Properties();
        props.setProperty("user", user);
        props.setProperty("password", password);
        long timeoutMs = MIGRATION_TIMEOUT.toMillis();
        if (url.startsWith("jdbc:postgresql:")) {
            props.setProperty("socketTimeout", Long.toString(timeoutMs / 1000));
        }
        try (Connection c = DriverManager.getConnection(boundedUrl(url, timeoutMs), props); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS cost_centers (code VARCHAR(64) PRIMARY KEY, "
                    + "name VARCHAR(200) NOT NULL, budget_cents BIGINT NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS orders (id BIGINT PRIMARY KEY, customer VARCHAR(200) NOT NULL, "
                    + "amount_cents BIGINT NOT NULL, status VARCHAR(32) NOT NULL)");
            if (count(s, "cost_centers") == 0) {
                c.setAutoCommit(false);
                try (PreparedStatement p = c.prepareStatement("INSERT INTO cost_centers VALUES (?, ?, ?)")) {
                    for (int i = 1; i <= COST_CENTERS; i++) {
                        p.setString(1, "CC-" + i);
                        p.setString(2, "Cost center " + i);
                        p.setLong(3, 1_000_000L * i);
                        p.addBatch();
                    }
                    p.executeBatch();
                }
                c.commit();
                c.setAutoCommit(true);
            }
            if (count(s, "orders") == 0) {
                c.setAutoCommit(false);
                String[] statuses = {"NEW", "PAID", "SHIPPED", "DELIVERED"};
                try (PreparedStatement p = c.prepareStatement("INSERT INTO orders VALUES (?, ?, ?, ?)")) {
                    for (int i = 1; i <= ORDERS; i++) {
                        p.setLong(1, i);
                        p.setString(2, "customer-" + (i % 97 + 1));
                        p.setLong(3, 199L * i % 100_000 + 100);
                        p.setString(4, statuses[i % statuses.length]);
                        p.addBatch();
                    }
                    p.executeBatch();
                }
                c.commit();
                c.setAutoCommit(true);
            }
        }
    }

    private static long count(Statement s, String table) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * One round trip ({@code SELECT 1}) through the pool; bounded by the connection timeout plus
     * the network timeout.
     *
     * @return the round trip's duration
     * @throws SQLException if the database cannot be reached
     */
    Duration ping() throws SQLException {
        long t0 = System.nanoTime();
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.setQueryTimeout(queryTimeoutSeconds());
            try (ResultSet rs = s.executeQuery("SELECT 1")) {
                rs.next();
            }
        }
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    /** A cost center row; {@code known} is false for a code that has no row. */
    static final class CostCenter {
        final String code;
        final String name;
        final long budgetCents;
        final boolean known;

        CostCenter(String code, String name, long budgetCents, boolean known) {
            this.code = code;
            this.name = name;
            this.budgetCents = budgetCents;
            this.known = known;
        }
    }

    /**
     * @param code a cost center code
     * @return its row, or an unknown cost center with budget 0 when there is none
     * @throws SQLException if the database cannot be reached
     */
    CostCenter costCenter(String code) throws SQLException {
        Objects.requireNonNull(code, "code");
        try (Connection c = pool.getConnection();
                PreparedStatement p = c.prepareStatement("SELECT name, budget_cents FROM cost_centers WHERE code = ?")) {
            p.setQueryTimeout(queryTimeoutSeconds());
            p.setString(1, code);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? new CostCenter(code, rs.getString(1), rs.getLong(2), true)
                        : new CostCenter(code, "unknown", 0, false);
            }
        }
    }

    /** An order row. */
    static final class Order {
        final long id;
        final String customer;
        final long amountCents;
        final String status;

        Order(long id, String customer, long amountCents, String status) {
            this.id = id;
            this.customer = customer;
            this.amountCents = amountCents;
            this.status = status;
        }
    }

    /**
     * @param id an order id
     * @return the order, if there is one
     * @throws SQLException if the database cannot be reached
     */
    Optional<Order> order(long id) throws SQLException {
        try (Connection c = pool.getConnection();
                PreparedStatement p = c.prepareStatement("SELECT customer, amount_cents, status FROM orders WHERE id = ?")) {
            p.setQueryTimeout(queryTimeoutSeconds());
            p.setLong(1, id);
            try (ResultSet rs = p.executeQuery()) {
                return rs.next() ? Optional.of(new Order(id, rs.getString(1), rs.getLong(2), rs.getString(3))) : Optional.empty();
            }
        }
    }

    private int queryTimeoutSeconds() {
        return (int) Math.max(1, (timeout.toMillis() + 999) / 1000);
    }

    /** Closes the pool, stops the TCP server and drops the in-memory database. Idempotent. */
    @Override
    public void close() {
        pool.close();
        server.stop();
        try (Connection k = keeper; Statement s = k.createStatement()) {
            s.execute("SHUTDOWN");
        } catch (SQLException e) {
            // dropping an embedded in-memory database; nothing to recover
        }
    }
}
