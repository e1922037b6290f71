package io.postlog.stream;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.postlog.Lsn;
import io.postlog.decoder.DecoderRequest;
import io.postlog.test.PostgresDatabase;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A table, a publication and a pgoutput slot in a test database, with helpers that read
 * raw pgoutput bytes (the decoder is tested elsewhere; these look at tags and fixed
 * offsets only).
 */
final class StreamFixture {

	final PostgresDatabase database;

	final String table;

	final String publication;

	final String slot;

	final PgLogicalStreamFactory factory;

	StreamFixture(PostgresDatabase database, String name) {
		this.database = database;
		this.table = name + "_t";
		this.publication = name + "_pub";
		this.slot = name + "_slot";
		this.factory = new PgLogicalStreamFactory(
				ReplicationConnectionFactory.of(database.jdbcUrl(), database.username(), null));
		database.execute("CREATE TABLE " + this.table + " (id int primary key)",
				"CREATE PUBLICATION " + this.publication + " FOR TABLE " + this.table);
	}

	StreamFixture withSlot() {
		this.database.execute("SELECT pg_create_logical_replication_slot('" + this.slot + "', 'pgoutput')");
		return this;
	}

	StreamRequest request(Duration statusInterval, boolean temporary) {
		StreamRequest request = PgOutputCapture.request(this.slot, this.publication, DecoderRequest.text(), temporary);
		return new StreamRequest(request.slotName(), request.plugin(), request.options(), Lsn.INVALID, statusInterval,
				temporary);
	}

	LogicalStream open(Duration statusInterval) {
		return this.factory.open(request(statusInterval, false));
	}

	/**
	 * Opens the slot again after an earlier stream on it closed: the old walsender may
	 * still hold the slot for a moment after its connection closed.
	 */
	LogicalStream reopen(Duration statusInterval) {
		await().atMost(Duration.ofSeconds(30)).until(() -> "false".equals(slotColumn("active")));
		return open(statusInterval);
	}

	void insert(int id) {
		this.database.execute("INSERT INTO " + this.table + " VALUES (" + id + ")");
	}

	/**
	 * Reads messages up to and including the next Commit of a transaction that changed
	 * something, copying each: before PostgreSQL 15 pgoutput also sends a transaction
	 * that changed nothing published (another session's DDL, autovacuum's analyze) as a
	 * Begin and a Commit alone, which this skips.
	 */
	static List<byte[]> readTransaction(LogicalStream stream, Duration timeout) {
		List<byte[]> messages = new ArrayList<>();
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() < deadline) {
			ByteBuffer payload = stream.read(Duration.ofMillis(100));
			if (payload == null) {
				continue;
			}
			byte[] bytes = new byte[payload.remaining()];
			payload.get(bytes);
			messages.add(bytes);
			if (bytes[0] == 'C') {
				if (messages.size() > 2 || messages.get(0)[0] != 'B') {
					return messages;
				}
				messages.clear();
			}
		}
		throw new AssertionError("No complete transaction within " + timeout + "; got " + tags(messages));
	}

	/**
	 * Reads for {@code duration}, asserting that nothing arrives but transactions that
	 * changed nothing published (a Begin and a Commit alone, which pgoutput sends before
	 * PostgreSQL 15).
	 */
	static void readNothing(LogicalStream stream, Duration duration) {
		long deadline = System.nanoTime() + duration.toNanos();
		do {
			ByteBuffer message = stream.read(Duration.ofMillis(Math.min(100, duration.toMillis())));
			if (message != null) {
				assertThat((char) message.get(0)).isIn('B', 'C');
			}
		}
		while (System.nanoTime() < deadline);
	}

	static String tags(List<byte[]> messages) {
		StringBuilder tags = new StringBuilder();
		messages.forEach((message) -> tags.append((char) message[0]));
		return tags.toString();
	}

	/** Commit (pgoutput v1): tag, flags, commit LSN, end LSN, timestamp. */
	static Lsn commitEndLsn(byte[] commit) {
		assertThat((char) commit[0]).isEqualTo('C');
		return Lsn.of(ByteBuffer.wrap(commit, 10, 8).getLong());
	}

	/** Insert (pgoutput v1) of a one-column row: the column's text value. */
	static String insertedText(byte[] insert) {
		ByteBuffer buffer = ByteBuffer.wrap(insert);
		assertThat((char) buffer.get()).isEqualTo('I');
		buffer.getInt();
		assertThat((char) buffer.get()).isEqualTo('N');
		assertThat(buffer.getShort()).isEqualTo((short) 1);
		assertThat((char) buffer.get()).isEqualTo('t');
		byte[] text = new byte[buffer.getInt()];
		buffer.get(text);
		return new String(text, java.nio.charset.StandardCharsets.UTF_8);
	}

	@Nullable String slotColumn(String column) {
		try (Connection connection = this.database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT " + column + "::text FROM pg_replication_slots"
						+ " WHERE slot_name = '" + this.slot + "'")) {
			return row.next() ? row.getString(1) : null;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * A column of {@code pg_stat_replication} for the walsender that holds the slot, as
	 * text.
	 */
	@Nullable String senderColumn(String column) {
		try (Connection connection = this.database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT r." + column + "::text FROM pg_stat_replication r"
						+ " JOIN pg_replication_slots s ON s.active_pid = r.pid WHERE s.slot_name = '" + this.slot
						+ "'")) {
			return row.next() ? row.getString(1) : null;
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	Lsn confirmedFlushLsn() {
		return Lsn.parse(slotColumn("confirmed_flush_lsn"));
	}

}
