package io.postlog.decoder;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.stream.PgOutputCapture;
import io.postlog.test.PostgresDatabase;
import org.postgresql.PGConnection;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;

/**
 * Streams a slot with a {@link LogicalDecoder}'s plugin options over pgjdbc's replication
 * API, on a connection with the pinned session settings, as the consumer's stream will:
 * the payloads as they arrive, and the messages the decoder's stream decoder makes of
 * them.
 */
final class PluginStream implements AutoCloseable {

	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	private final Connection connection;

	private final PGReplicationStream stream;

	private final StreamDecoder decoder;

	private PluginStream(Connection connection, PGReplicationStream stream, StreamDecoder decoder) {
		this.connection = connection;
		this.stream = stream;
		this.decoder = decoder;
	}

	static PluginStream open(PostgresDatabase database, String slot, LogicalDecoder decoder, DecoderRequest request,
			DecoderCatalog catalog) throws SQLException {
		int version = database.serverVersion();
		Connection connection = PgOutputCapture.pinnedConnections(database).connect();
		try {
			Properties options = new Properties();
			decoder.startOptions(version, request).forEach(options::setProperty);
			PGReplicationStream stream = connection.unwrap(PGConnection.class)
				.getReplicationAPI()
				.replicationStream()
				.logical()
				.withSlotName(slot)
				.withStartPosition(LogSequenceNumber.INVALID_LSN)
				.withSlotOptions(options)
				.withStatusInterval(10, TimeUnit.SECONDS)
				.start();
			return new PluginStream(connection, stream, decoder.newStream(version, request, catalog));
		}
		catch (SQLException | RuntimeException ex) {
			connection.close();
			throw ex;
		}
	}

	/** Reads the next payload, copied. */
	byte[] nextPayload() throws SQLException {
		long deadline = System.nanoTime() + TIMEOUT.toNanos();
		while (System.nanoTime() < deadline) {
			ByteBuffer payload = this.stream.readPending();
			if (payload != null) {
				byte[] bytes = new byte[payload.remaining()];
				payload.get(bytes);
				return bytes;
			}
			try {
				Thread.sleep(10);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
		throw new AssertionError("No payload within " + TIMEOUT);
	}

	/** Decodes a payload read with {@link #nextPayload()}. */
	List<PgOutputMessage> decode(byte[] payload) {
		return this.decoder.decode(ByteBuffer.wrap(payload));
	}

	/**
	 * Reads and decodes payloads up to and including the next commit of a transaction.
	 * @return each payload with the messages made of it
	 */
	List<Decoded> readTransaction() throws SQLException {
		List<Decoded> decoded = new ArrayList<>();
		while (true) {
			byte[] payload = nextPayload();
			List<PgOutputMessage> messages = decode(payload);
			decoded.add(new Decoded(payload, messages));
			if (!messages.isEmpty() && messages.get(messages.size() - 1) instanceof PgOutputMessage.Commit) {
				return decoded;
			}
		}
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

	/**
	 * One payload and what the stream decoder made of it.
	 *
	 * @param payload the bytes
	 * @param messages the messages
	 */
	record Decoded(byte[] payload, List<PgOutputMessage> messages) {

	}

}
