package dev.vitals.demo;

import com.zaxxer.hikari.SQLExceptionOverride;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;

/**
 * Makes HikariCP evict a connection on any connection-class error. H2 reports a cut TCP
 * connection as {@code 90067 Connection is broken} (a {@link SQLNonTransientConnectionException}
 * whose SQL state is not in the {@code 08} class Hikari looks for), so without this the pool
 * hands the same dead connection out again and again while it is used more often than
 * Hikari's alive-check bypass window, and the service never recovers from a database outage.
 * Instantiated by Hikari by class name; stateless.
 */
public final class EvictBrokenConnections implements SQLExceptionOverride {
    @java.lang.Override
    public SQLExceptionOverride.Override adjudicate(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLNonTransientConnectionException || t instanceof SQLTransientConnectionException
                    || t instanceof SQLRecoverableException) {
                return SQLExceptionOverride.Override.MUST_EVICT;
            }
        }
        return SQLExceptionOverride.Override.CONTINUE_EVICT;
    }
}
