package io.postlog.stream;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.regex.Pattern;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.admin.ConnectionLostException;
import io.postlog.admin.InvalidIdentifierException;
import io.postlog.admin.PgErrors;
import io.postlog.admin.PgIdentifiers;
import io.postlog.admin.SlotInUseException;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.copy.CopyDual;
import org.postgresql.replication.ReplicationSlotInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens logical streams of any output plugin ({@code START_REPLICATION} over pgjdbc's
 * copy API, a temporary slot made with its replication API), each on a fresh connection
 * from a {@link ReplicationConnectionFactory} whose {@link SessionSettings} are pinned
 * right after it connects, so that no server, database or role default changes the text a
 * plugin prints. The server learns an acknowledged position only when the stream's owner
 * sends status. Thread-safe as far as the connection factory is.
 * <p>
 * Time bounds: connecting and logging in take at most the connect timeout (pgjdbc's
 * {@code connectTimeout} and {@code loginTimeout}), and so does
 * {@code START_REPLICATION}; creating a temporary slot waits as long as the server needs
 * to find a consistent point (it waits for running transactions to end).
 * <p>
 * Errors are translated by {@link PgErrors#translateReplication}: a connection that fails
 * or times out is a {@link ConnectionLostException}; another process streaming from the
 * slot a {@link SlotInUseException}; a missing slot a
 * {@link io.postlog.admin.SlotNotFoundException}; a missing role attribute an
 * {@link io.postlog.admin.InsufficientPrivilegeException}.
 */
public final class PgLogicalStreamFactory implements LogicalStreamFactory {

	private static final Logger logger = LoggerFactory.getLogger(PgLogicalStreamFactory.class);

	private static final Pattern PLUGIN_NAME = Pattern.compile("[a-z0-9_]{1,63}");

	private final ReplicationConnectionFactory connections;

	private final Duration connectTimeout;

	/**
	 * Creates a factory with a connect timeout of 10 s.
	 * @param connections opens a fresh replication connection per stream
	 */
	public PgLogicalStreamFactory(ReplicationConnectionFactory connections) {
		this(connections, Duration.ofSeconds(10));
	}

	/**
	 * Creates a factory.
	 * @param connections opens a fresh replication connection per stream
	 * @param connectTimeout the longest a connect, login or {@code START_REPLICATION} may
	 * take (at least one second)
	 */
	public PgLogicalStreamFactory(ReplicationConnectionFactory connections, Duration connectTimeout) {
		this.connections = Objects.requireNonNull(connections, "connections");
		this.connectTimeout = Objects.requireNonNull(connectTimeout, "connectTimeout");
	}

	@Override
	public LogicalStream open(StreamRequest request) {
		// The slot name, the plugin and the option values go into
		// CREATE_REPLICATION_SLOT and START_REPLICATION unescaped: check them before
		// anything reaches the server.
		String slotName = PgIdentifiers.requireSlotName(request.slotName());
		requirePastable(request);
		SocketProbe probe = SocketProbe.register();
		Connection connection;
		try {
			connection = this.connections.connect(driverProperties(probe));
		}
		catch (SQLException ex) {
			probe.close();
			throw PgErrors.translateReplication(ex, slotName, false,
					"Could not open a replication connection for slot '" + slotName + "'");
		}
		try {
			Duration serverTimeout = prepareSession(connection);
			PGConnection pgConnection = connection.unwrap(PGConnection.class);
			Lsn created = Lsn.INVALID;
			if (request.temporarySlot()) {
				ReplicationSlotInfo slot = pgConnection.getReplicationAPI()
					.createReplicationSlot()
					.logical()
					.withSlotName(slotName)
					.withOutputPlugin(request.plugin())
					.withTemporaryOption()
					.make();
				created = Lsn.of(slot.getConsistentPoint().asLong());
			}
			connection.setNetworkTimeout(null, timeoutMillis());
			CopyDual copy = pgConnection.getCopyAPI().copyDual(startReplication(slotName, request));
			connection.setNetworkTimeout(null, 0);
			if (copy == null) {
				throw new PostlogException(
						"START_REPLICATION for slot '" + slotName + "' did not start streaming (no CopyBothResponse)");
			}
			return new PgLogicalStream(slotName, connection, copy, request.startLsn(), probe, serverTimeout, created);
		}
		catch (SQLException ex) {
			closeQuietly(connection, probe);
			throw PgErrors.translateReplication(ex, slotName, false,
					"Could not start replication from slot '" + slotName + "'");
		}
		catch (RuntimeException ex) {
			closeQuietly(connection, probe);
			throw ex;
		}
	}

	/**
	 * Builds {@code START_REPLICATION} as pgjdbc's replication API did: the slot name and
	 * plugin options were checked by {@link #requirePastable} and
	 * {@link PgIdentifiers#requireSlotName}.
	 */
	private static String startReplication(String slotName, StreamRequest request) {
		StringBuilder command = new StringBuilder("START_REPLICATION SLOT ").append(slotName)
			.append(" LOGICAL ")
			.append(request.startLsn());
		if (!request.options().isEmpty()) {
			StringJoiner options = new StringJoiner(", ", " (", ")");
			request.options().forEach((name, value) -> options.add('"' + name + "\" '" + value + '\''));
			command.append(options);
		}
		return command.toString();
	}

	private Properties driverProperties(SocketProbe probe) {
		Properties properties = new Properties();
		int seconds = (int) Math.max(1, Math.min(Integer.MAX_VALUE, this.connectTimeout.toSeconds()));
		PGProperty.CONNECT_TIMEOUT.set(properties, seconds);
		PGProperty.LOGIN_TIMEOUT.set(properties, seconds);
		PGProperty.TCP_KEEP_ALIVE.set(properties, true);
		PGProperty.SOCKET_FACTORY.set(properties, ProbingSocketFactory.class.getName());
		PGProperty.SOCKET_FACTORY_ARG.set(properties, probe.id());
		PGProperty.LOG_SERVER_ERROR_DETAIL.set(properties, false);
		return properties;
	}

	private int timeoutMillis() {
		return (int) Math.max(1000, Math.min(Integer.MAX_VALUE, this.connectTimeout.toMillis()));
	}

	/**
	 * Pins the {@link SessionSettings} the plugin prints values with, then reads
	 * {@code wal_sender_timeout}: SQL on a {@code replication=database} connection works
	 * from PostgreSQL 10 on.
	 */
	private Duration prepareSession(Connection connection) throws SQLException {
		connection.setNetworkTimeout(null, timeoutMillis());
		try {
			SessionSettings.apply(connection);
			try (Statement statement = connection.createStatement();
					ResultSet row = statement
						.executeQuery("SELECT setting FROM pg_settings WHERE name = 'wal_sender_timeout'")) {
				long millis = row.next() ? Long.parseLong(row.getString(1)) : 0;
				return Duration.ofMillis(Math.max(0, millis));
			}
		}
		finally {
			connection.setNetworkTimeout(null, 0);
		}
	}

	/**
	 * Checks what is pasted into the replication commands: the plugin as a bare word,
	 * option names in double quotes and values in single quotes, neither escaped.
	 */
	private static void requirePastable(StreamRequest request) {
		if (!PLUGIN_NAME.matcher(request.plugin()).matches()) {
			throw new IllegalArgumentException("Output plugin '" + PgIdentifiers.printable(request.plugin())
					+ "' is not a plain name (lower-case letters, digits and underscores)");
		}
		request.options().forEach((name, value) -> {
			if (name.isEmpty() || name.indexOf('"') >= 0 || name.indexOf('\0') >= 0) {
				throw new IllegalArgumentException(
						"Plugin option '" + PgIdentifiers.printable(name) + "' cannot be passed to START_REPLICATION");
			}
			if (value.indexOf('\'') >= 0 || value.indexOf('\0') >= 0) {
				throw new IllegalArgumentException("The value of plugin option '" + PgIdentifiers.printable(name)
						+ "' holds a single quote or NUL, which START_REPLICATION cannot carry");
			}
		});
	}

	/**
	 * Checks that a publication name can be passed to {@code START_REPLICATION}.
	 * @param publicationName the name
	 * @return the same name
	 * @throws InvalidIdentifierException if it holds a single quote, which pgjdbc cannot
	 * pass
	 */
	public static String requireStreamable(String publicationName) {
		PgIdentifiers.requireName("publication", publicationName);
		if (publicationName.indexOf('\'') >= 0) {
			throw new InvalidIdentifierException("publication", publicationName,
					"a single quote cannot be passed to START_REPLICATION");
		}
		return publicationName;
	}

	private static void closeQuietly(Connection connection, SocketProbe probe) {
		try {
			connection.close();
		}
		catch (SQLException ex) {
			// Already failing; the first error is the one to report.
			logger.debug("Closing a failed replication connection failed ({})", PgErrors.describe(ex));
		}
		finally {
			probe.close();
		}
	}

}
