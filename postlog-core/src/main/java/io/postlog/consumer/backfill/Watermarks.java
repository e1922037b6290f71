package io.postlog.consumer.backfill;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.admin.PgErrors;
import io.postlog.admin.PgIdentifiers;
import org.jspecify.annotations.Nullable;
import org.postgresql.core.Utils;

/**
 * The low and high watermarks that open and close a backfill chunk's window in the
 * stream. On PostgreSQL 14 and later a watermark is a transactional logical decoding
 * message with prefix {@value #PREFIX} (no table needed); before 14 it is an upsert of
 * the slot's row in the watermark table, which must therefore be published (it is created
 * and added to the publication when missing). Either way it is its own transaction, and
 * it reaches the stream at that transaction's commit. Stateless but for its names;
 * callers pass the connection.
 * <p>
 * Internal: public only so the consumer can keep watermark messages from subscriptions
 * when backfills are off ({@link #token}); not part of postlog's API.
 */
public final class Watermarks {

	/** The prefix of watermark messages, which no subscription is ever given. */
	static final String PREFIX = "postlog.watermark";

	static final int MESSAGES_VERSION = 140000;

	private final boolean messages;

	private final TableId table;

	private final String slotName;

	Watermarks(int serverVersion, TableId table, String slotName) {
		this.messages = serverVersion >= MESSAGES_VERSION;
		this.table = table;
		this.slotName = slotName;
	}

	/**
	 * Before 14: creates the watermark table when missing and adds it to the publication
	 * when the publication does not publish it.
	 */
	void prepare(Connection connection, String publication) throws SQLException {
		if (this.messages) {
			return;
		}
		String quoted = PgIdentifiers.quote(this.table);
		String create = "CREATE TABLE IF NOT EXISTS " + quoted
				+ " (slot_name text PRIMARY KEY, mark text NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())";
		try (Statement statement = connection.createStatement()) {
			try {
				statement.execute(create);
			}
			catch (SQLException ex) {
				// Created by another session at the same moment: found when run again.
				if (!PgErrors.isConcurrentCreation(ex) || !connection.getAutoCommit()) {
					throw ex;
				}
				statement.execute(create);
			}
		}
		try (PreparedStatement statement = connection.prepareStatement("SELECT p.puballtables, EXISTS (SELECT 1 FROM"
				+ " pg_catalog.pg_publication_tables t WHERE t.pubname = p.pubname AND t.schemaname = ?"
				+ " AND t.tablename = ?) FROM pg_catalog.pg_publication p WHERE p.pubname = ?")) {
			statement.setString(1, this.table.schema());
			statement.setString(2, this.table.name());
			statement.setString(3, publication);
			try (ResultSet row = statement.executeQuery()) {
				if (!row.next() || row.getBoolean(1) || row.getBoolean(2)) {
					return;
				}
			}
		}
		try (Statement statement = connection.createStatement()) {
			statement.execute(
					"ALTER PUBLICATION " + PgIdentifiers.quote("publication", publication) + " ADD TABLE " + quoted);
		}
	}

	/**
	 * Writes a watermark in a transaction of its own.
	 * @param connection a connection in autocommit mode
	 * @param token the watermark's token
	 */
	void write(Connection connection, String token) throws SQLException {
		connection.setAutoCommit(true);
		try (Statement statement = connection.createStatement()) {
			statement.execute(sql(token));
		}
	}

	/**
	 * Returns the statement that writes a watermark, for a caller that sends it with
	 * others; run in autocommit, it is a transaction of its own.
	 * @param token the watermark's token
	 */
	String sql(String token) {
		if (this.messages) {
			return "SELECT pg_catalog.pg_logical_emit_message(true, " + literal(PREFIX) + ", " + literal(token) + ")";
		}
		return "INSERT INTO " + PgIdentifiers.quote(this.table) + " (slot_name, mark) VALUES (" + literal(this.slotName)
				+ ", " + literal(token) + ") ON CONFLICT (slot_name) DO UPDATE SET mark = EXCLUDED.mark,"
				+ " updated_at = now()";
	}

	/**
	 * Quotes a string literal in {@code E''} syntax (pgjdbc doubles backslashes and
	 * quotes), so that it reads the same whatever {@code standard_conforming_strings} is.
	 */
	private static String literal(String value) {
		try {
			return "E'" + Utils.escapeLiteral(null, value, false) + "'";
		}
		catch (SQLException ex) {
			// Only NUL cannot be quoted; the slot's name and the tokens are ASCII.
			throw new IllegalArgumentException("A watermark's text cannot be quoted", ex);
		}
	}

	/**
	 * Returns a watermark message's token.
	 * @param message a logical decoding message
	 * @return the token, or {@code null} for another message
	 */
	public static @Nullable String token(LogicalMessage message) {
		return PREFIX.equals(message.prefix()) ? new String(message.content(), StandardCharsets.UTF_8) : null;
	}

	/**
	 * Returns whether a change is of the watermark table, which no subscription is given.
	 */
	boolean isWatermark(Change change) {
		return change.table().equals(this.table);
	}

	/**
	 * Returns the token a watermark table change carries for this slot.
	 * @return the token, or {@code null} for another slot's watermark
	 */
	@Nullable String token(Change change) {
		Row after = change.after();
		if (after == null || !this.slotName.equals(after.get("slot_name"))) {
			return null;
		}
		return (after.get("mark") instanceof String mark) ? mark : null;
	}

}
