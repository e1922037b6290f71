package io.postlog.admin;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import io.postlog.Lsn;
import io.postlog.test.PostgresDatabase;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;

/**
 * A pgoutput stream opened with plain pgjdbc, so admin tests do not depend on postlog's
 * own stream: reads messages and acknowledges positions.
 */
final class RawStream implements AutoCloseable {

	private final Connection connection;

	private final PGReplicationStream stream;

	private RawStream(Connection connection, PGReplicationStream stream) {
		this.connection = connection;
		this.stream = stream;
	}

	static RawStream open(PostgresDatabase database, String slot, String publication) throws SQLException {
		return open(database.connectReplication(), slot, publication);
	}

	/** Opens a stream on a fresh {@code replication=database} connection to a URL. */
	static RawStream open(String jdbcUrl, String slot, String publication) throws SQLException {
		Properties properties = new Properties();
		PGProperty.USER.set(properties, "postgres");
		PGProperty.REPLICATION.set(properties, "database");
		PGProperty.ASSUME_MIN_SERVER_VERSION.set(properties, "9.4");
		PGProperty.PREFER_QUERY_MODE.set(properties, "simple");
		return open(DriverManager.getConnection(jdbcUrl, properties), slot, publication);
	}

	private static RawStream open(Connection connection, String slot, String publication) throws SQLException {
		try {
			PGReplicationStream stream = connection.unwrap(PGConnection.class)
				.getReplicationAPI()
				.replicationStream()
				.logical()
				.withSlotName(slot)
				.withSlotOption("proto_version", "1")
				.withSlotOption("publication_names", publication)
				.withStatusInterval(1, TimeUnit.SECONDS)
				.start();
			return new RawStream(connection, stream);
		}
		catch (SQLException ex) {
			connection.close();
			throw ex;
		}
	}

	/** Reads the next message, or {@code null} if none came for a short while. */
	ByteBuffer readPending() throws SQLException {
		return this.stream.readPending();
	}

	Lsn lastReceived() {
		return Lsn.of(this.stream.getLastReceiveLSN().asLong());
	}

	void acknowledge(Lsn lsn) throws SQLException {
		LogSequenceNumber position = LogSequenceNumber.valueOf(lsn.value());
		this.stream.setFlushedLSN(position);
		this.stream.setAppliedLSN(position);
		this.stream.forceUpdateStatus();
	}

	@Override
	public void close() throws SQLException {
		try {
			this.stream.close();
		}
		finally {
			this.connection.close();
		}
	}

}
