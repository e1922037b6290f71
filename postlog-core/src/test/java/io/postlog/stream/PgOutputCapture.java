package io.postlog.stream;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.postlog.Lsn;
import io.postlog.Row;
import io.postlog.decoder.DecoderRequest;
import io.postlog.decoder.PgOutputLogicalDecoder;
import io.postlog.pgoutput.PgOutputDecoder;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.RowDecoder;
import io.postlog.test.PostgresDatabase;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.replication.PGReplicationStream;
import org.postgresql.replication.fluent.logical.ChainedLogicalStreamBuilder;

/**
 * Reads pgoutput (protocol version 1) from an existing slot and decodes it: the messages
 * of whole transactions, and the rows of their inserts through a {@link RowDecoder} fed
 * every Type and Relation message, as the consumer's assembler does. Over the consumer's
 * own stream (session settings pinned), or over a plain pgjdbc stream that shows what the
 * server prints with its own settings.
 */
public final class PgOutputCapture implements AutoCloseable {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private final Payloads stream;

	private final RowDecoder rows;

	private PgOutputCapture(Payloads stream, RowDecoder rows) {
		this.stream = stream;
		this.rows = rows;
	}

	/**
	 * Starts streaming from a slot.
	 * @param connections opens the replication connection
	 * @param slot the slot, which must exist
	 * @param publication the publication
	 * @param binary whether to ask for binary values
	 * @param values the value decoders rows are decoded with
	 * @return the capture, to close
	 */
	public static PgOutputCapture open(ReplicationConnectionFactory connections, String slot, String publication,
			boolean binary, ValueDecoders values) {
		LogicalStream stream = new PgLogicalStreamFactory(connections)
			.open(request(slot, publication, new DecoderRequest(binary, false, false), false));
		return new PgOutputCapture(new Payloads() {

			@Override
			public @Nullable ByteBuffer read(Duration timeout) {
				return stream.read(timeout);
			}

			@Override
			public void close() {
				stream.close();
			}

		}, new RowDecoder(values));
	}

	/**
	 * Starts streaming text values from a slot over pgjdbc alone, on a connection that
	 * keeps the session settings the server gives it.
	 * @param database the database
	 * @param slot the slot, which must exist
	 * @param publication the publication
	 * @param values the value decoders rows are decoded with
	 * @return the capture, to close
	 * @throws SQLException if the stream cannot start
	 */
	public static PgOutputCapture openUnpinned(PostgresDatabase database, String slot, String publication,
			ValueDecoders values) throws SQLException {
		Connection connection = connections(database).connect();
		try {
			ChainedLogicalStreamBuilder builder = connection.unwrap(PGConnection.class)
				.getReplicationAPI()
				.replicationStream()
				.logical()
				.withSlotName(slot)
				.withStatusInterval(10, TimeUnit.SECONDS);
			for (Map.Entry<String, String> option : request(slot, publication, DecoderRequest.text(), false).options()
				.entrySet()) {
				builder = builder.withSlotOption(option.getKey(), option.getValue());
			}
			PGReplicationStream stream = builder.start();
			return new PgOutputCapture(new Payloads() {

				@Override
				public @Nullable ByteBuffer read(Duration timeout) throws SQLException {
					ByteBuffer payload = stream.readPending();
					if (payload == null) {
						LockSupport.parkNanos(Math.min(timeout.toNanos(), TimeUnit.MILLISECONDS.toNanos(5)));
					}
					return payload;
				}

				@Override
				public void close() throws SQLException {
					connection.close();
				}

			}, new RowDecoder(values));
		}
		catch (SQLException | RuntimeException ex) {
			connection.close();
			throw ex;
		}
	}

	/**
	 * Returns a request to stream pgoutput, protocol version 1 unless streaming, from the
	 * slot's confirmed position with a status interval of 10 s.
	 * @param slot the slot
	 * @param publication the publication
	 * @param what what to ask for
	 * @param temporary whether to create a temporary slot first
	 * @return the request
	 */
	public static StreamRequest request(String slot, String publication, DecoderRequest what, boolean temporary) {
		return new StreamRequest(slot, "pgoutput",
				PgOutputLogicalDecoder.forPublications(List.of(publication)).startOptions(0, what), Lsn.INVALID,
				Duration.ofSeconds(10), temporary);
	}

	/**
	 * Returns a factory of plain replication connections to a test database.
	 * @param database the database
	 * @return the factory
	 */
	public static ReplicationConnectionFactory connections(PostgresDatabase database) {
		return ReplicationConnectionFactory.of(database.jdbcUrl(), database.username(), null);
	}

	/**
	 * Returns a factory whose connections pin {@link SessionSettings} right after
	 * connecting, as the consumer's replication connection does.
	 * @param database the database
	 * @return the factory
	 */
	public static ReplicationConnectionFactory pinnedConnections(PostgresDatabase database) {
		// The stream factory pins them itself; this is for connections used without it.
		ReplicationConnectionFactory plain = connections(database);
		return () -> {
			java.sql.Connection connection = plain.connect();
			SessionSettings.apply(connection);
			return connection;
		};
	}

	/**
	 * Reads the next transaction, up to and including its Commit.
	 * @return its messages
	 */
	public List<PgOutputMessage> readTransaction() {
		List<PgOutputMessage> messages = new ArrayList<>();
		long deadline = System.nanoTime() + TIMEOUT.toNanos();
		while (System.nanoTime() < deadline) {
			ByteBuffer payload = read();
			if (payload == null) {
				continue;
			}
			PgOutputMessage message = PgOutputDecoder.decode(payload);
			messages.add(message);
			if (message instanceof PgOutputMessage.Type type) {
				this.rows.type(type);
			}
			if (message instanceof PgOutputMessage.Relation relation) {
				this.rows.relation(relation);
			}
			if (message instanceof PgOutputMessage.Commit) {
				return messages;
			}
		}
		throw new AssertionError("No complete transaction within " + TIMEOUT + "; got " + messages);
	}

	/**
	 * Reads the next transaction and decodes the rows it inserted.
	 * @return the new rows, in order
	 */
	public List<Row> readInsertedRows() {
		List<Row> inserted = new ArrayList<>();
		for (PgOutputMessage message : readTransaction()) {
			if (message instanceof PgOutputMessage.Insert insert) {
				inserted.add(this.rows.newRow(insert.relationId(), insert.newTuple()));
			}
		}
		return inserted;
	}

	/**
	 * Decodes the new row of an insert this capture read.
	 * @param insert the insert
	 * @return the row
	 */
	public Row decode(PgOutputMessage.Insert insert) {
		return this.rows.newRow(insert.relationId(), insert.newTuple());
	}

	private @Nullable ByteBuffer read() {
		try {
			return this.stream.read(Duration.ofMillis(100));
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() {
		try {
			this.stream.close();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Where the payloads come from. */
	private interface Payloads {

		@Nullable ByteBuffer read(Duration timeout) throws SQLException;

		void close() throws SQLException;

	}

}
