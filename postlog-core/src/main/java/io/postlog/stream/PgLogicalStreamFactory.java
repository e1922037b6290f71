package io.postlog.stream;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;

import io.postlog.PostlogException;
import io.postlog.admin.InsufficientPrivilegeException;
import io.postlog.admin.InvalidIdentifierException;
import io.postlog.admin.PgIdentifiers;
import io.postlog.admin.SlotInUseException;
import io.postlog.admin.SlotNotFoundException;
import org.postgresql.PGConnection;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.postgresql.replication.fluent.logical.ChainedLogicalStreamBuilder;

/**
 * Opens pgoutput streams with pgjdbc's replication API, each on a fresh connection from a
 * {@link ReplicationConnectionFactory}. Automatic flushing is off: the server learns an
 * acknowledged position only from {@link LogicalStream#acknowledge}. Thread-safe as far
 * as the connection factory is.
 * <p>
 * Errors: {@link SlotInUseException} when another process streams from the slot (SQLState
 * {@code 55006}, or {@code 42710} when a temporary slot of that name is held by another
 * connection); {@link SlotNotFoundException} when the slot does not exist
 * ({@code 42704}); {@link InsufficientPrivilegeException} when the role lacks
 * {@code REPLICATION} ({@code 42501}); any other failure is a {@link PostlogException}
 * with the {@link SQLException} as cause.
 */
public final class PgLogicalStreamFactory implements LogicalStreamFactory {

	private final ReplicationConnectionFactory connections;

	/**
	 * Creates a factory.
	 * @param connections opens a fresh replication connection per stream
	 */
	public PgLogicalStreamFactory(ReplicationConnectionFactory connections) {
		this.connections = Objects.requireNonNull(connections, "connections");
	}

	@Override
	public LogicalStream open(StreamRequest request) {
		// pgjdbc pastes the slot name and option values into START_REPLICATION unquoted:
		// check them before anything reaches the server.
		String slotName = PgIdentifiers.requireSlotName(request.slotName());
		String publications = publicationNames(request);
		Connection connection;
		try {
			connection = this.connections.connect();
		}
		catch (SQLException ex) {
			throw translate(ex, slotName, "Could not open a replication connection for slot '" + slotName + "'");
		}
		try {
			PGConnection pgConnection = connection.unwrap(PGConnection.class);
			if (request.temporarySlot()) {
				pgConnection.getReplicationAPI()
					.createReplicationSlot()
					.logical()
					.withSlotName(slotName)
					.withOutputPlugin("pgoutput")
					.withTemporaryOption()
					.make();
			}
			ChainedLogicalStreamBuilder builder = pgConnection.getReplicationAPI()
				.replicationStream()
				.logical()
				.withSlotName(slotName)
				.withStartPosition(LogSequenceNumber.valueOf(request.startLsn().value()))
				.withSlotOption("proto_version", String.valueOf(request.protocolVersion()))
				.withSlotOption("publication_names", publications)
				.withStatusInterval((int) Math.min(Integer.MAX_VALUE, request.statusInterval().toMillis()),
						TimeUnit.MILLISECONDS)
				.withAutomaticFlush(false);
			if (request.binary()) {
				builder = builder.withSlotOption("binary", "true");
			}
			if (request.messages()) {
				builder = builder.withSlotOption("messages", "true");
			}
			PGReplicationStream stream = builder.start();
			return new PgLogicalStream(slotName, connection, stream, request.statusInterval());
		}
		catch (SQLException ex) {
			closeQuietly(connection);
			throw translate(ex, slotName, "Could not start replication from slot '" + slotName + "'");
		}
		catch (RuntimeException ex) {
			closeQuietly(connection);
			throw ex;
		}
	}

	/**
	 * Quotes each publication name for pgoutput's {@code publication_names} list. pgjdbc
	 * wraps the value in single quotes without escaping, so a name holding one is
	 * refused.
	 */
	private static String publicationNames(StreamRequest request) {
		if (request.publicationNames().isEmpty()) {
			throw new IllegalArgumentException("At least one publication name is required");
		}
		StringJoiner names = new StringJoiner(",");
		for (String name : request.publicationNames()) {
			if (name.indexOf('\'') >= 0) {
				throw new InvalidIdentifierException("publication", name,
						"a single quote cannot be passed to START_REPLICATION");
			}
			names.add(PgIdentifiers.quote("publication", name));
		}
		return names.toString();
	}

	static PostlogException translate(SQLException ex, String slotName, String message) {
		String sqlState = ex.getSQLState();
		if ("55006".equals(sqlState) || "42710".equals(sqlState)) {
			return new SlotInUseException(slotName, null, ex);
		}
		if ("42704".equals(sqlState)) {
			return new SlotNotFoundException(slotName, ex);
		}
		if ("42501".equals(sqlState)) {
			return new InsufficientPrivilegeException("(connecting role)", "stream from replication slots", ex);
		}
		return new PostlogException(message, ex);
	}

	private static void closeQuietly(Connection connection) {
		try {
			connection.close();
		}
		catch (SQLException ex) {
			// Already failing; the first error is the one to report.
		}
	}

}
