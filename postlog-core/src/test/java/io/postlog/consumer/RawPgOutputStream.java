package io.postlog.consumer;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.postlog.Lsn;
import io.postlog.test.PostgresDatabase;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.postgresql.replication.fluent.logical.ChainedLogicalStreamBuilder;

/**
 * A pgoutput stream opened with pgjdbc directly, because {@code StreamRequest} cannot ask
 * for {@code streaming}. Nothing is acknowledged unless the test says so.
 */
final class RawPgOutputStream implements AutoCloseable {

	private final Connection connection;

	private final PGReplicationStream stream;

	/**
	 * Opens a stream.
	 * @param options pgoutput options besides {@code publication_names}, as name, value
	 * pairs: {@code proto_version} first
	 */
	RawPgOutputStream(PostgresDatabase database, String slot, String publication, List<String> options)
			throws SQLException {
		this(database.connectReplication(), slot, publication, options);
	}

	/**
	 * Opens a stream on a replication connection, which it then owns.
	 * @param options pgoutput options besides {@code publication_names}, as name, value
	 * pairs
	 */
	RawPgOutputStream(Connection connection, String slot, String publication, List<String> options)
			throws SQLException {
		this.connection = connection;
		try {
			ChainedLogicalStreamBuilder builder = this.connection.unwrap(PGConnection.class)
				.getReplicationAPI()
				.replicationStream()
				.logical()
				.withSlotName(slot)
				.withSlotOption("publication_names", publication)
				.withStatusInterval(1, TimeUnit.SECONDS)
				.withAutomaticFlush(false);
			for (int i = 0; i < options.size(); i += 2) {
				builder = builder.withSlotOption(options.get(i), options.get(i + 1));
			}
			this.stream = builder.start();
		}
		catch (SQLException | RuntimeException ex) {
			this.connection.close();
			throw ex;
		}
	}

	/** Returns a copy of the next payload, or {@code null} if none came in time. */
	byte @Nullable [] read(Duration timeout) throws SQLException {
		long deadline = System.nanoTime() + timeout.toNanos();
		do {
			ByteBuffer payload = this.stream.readPending();
			if (payload != null) {
				byte[] bytes = new byte[payload.remaining()];
				payload.get(bytes);
				return bytes;
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
		}
		while (System.nanoTime() < deadline);
		return null;
	}

	void acknowledge(Lsn lsn) throws SQLException {
		LogSequenceNumber position = LogSequenceNumber.valueOf(lsn.value());
		this.stream.setFlushedLSN(position);
		this.stream.setAppliedLSN(position);
		this.stream.forceUpdateStatus();
	}

	@Override
	public void close() throws SQLException {
		this.connection.close();
	}

}
