package io.postlog.spring;

import java.math.BigDecimal;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.postlog.Acknowledgment;
import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.Transaction;
import io.postlog.admin.PgIdentifiers;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.JdbcOperations;

/**
 * Replays dead letters ({@link PostlogDeadLetterErrorHandler}) through the listener that
 * failed them, oldest first, outside the stream: each change is rebuilt from its row in
 * the dead-letter table and given to the listener's method as it was the first time (same
 * table, operation, commit LSN and {@link Change#id()}); a dead letter is deleted once
 * the listener returned, and the first one it throws on ends the replay, left in the
 * table. Values come from the row's JSON form: a JSON number is a {@code Long} when
 * integral and within range, else a {@code BigDecimal}; a string a {@code String} (a
 * {@code bytea} as its base64 text, a timestamp as its ISO text); a boolean a
 * {@code Boolean}; an array or object its JSON text. Record and bean listeners convert
 * them as they convert streamed values; a {@code Change} listener sees them as they are.
 * The commit time is when the dead letter was written (the table keeps no other). Nothing
 * of a row value reaches a log line or the result. Calls are serialized; a listener that
 * takes an {@code Acknowledgment} gets one that does nothing (the dead letter is deleted
 * when the method returns).
 */
public final class DeadLetters {

	private static final Logger logger = LoggerFactory.getLogger(DeadLetters.class);

	private final JdbcOperations jdbc;

	private final PostlogListenerRegistry registry;

	private final String table;

	/**
	 * Creates the replayer.
	 * @param jdbc the application's database, holding the dead-letter table
	 * @param registry the listeners
	 * @param table the dead-letter table
	 * @throws io.postlog.admin.InvalidIdentifierException if its name is not a valid
	 * identifier
	 */
	public DeadLetters(JdbcOperations jdbc, PostlogListenerRegistry registry, TableId table) {
		this.jdbc = Objects.requireNonNull(jdbc, "jdbc");
		this.registry = Objects.requireNonNull(registry, "registry");
		this.table = PgIdentifiers.quote(table);
	}

	/**
	 * Replays a listener's dead letters, oldest first, until one fails again.
	 * @param listenerId the listener's id
	 * @return what was replayed
	 * @throws IllegalArgumentException if no listener has that id, or it takes messages
	 */
	public synchronized Replay replay(String listenerId) {
		ListenerEndpoint endpoint = this.registry.endpoint(listenerId);
		if (endpoint == null || endpoint.invoker() instanceof MessageInvoker) {
			throw new IllegalArgumentException("No postlog change listener has the id '" + listenerId + "'");
		}
		List<Letter> letters = this.jdbc.query(
				"SELECT id, table_name, operation, commit_lsn::text, change_id," + " failed_at FROM " + this.table
						+ " WHERE listener_id = ? ORDER BY id",
				(row, index) -> new Letter(row.getLong(1), TableId.parse(row.getString(2)),
						Operation.valueOf(row.getString(3)), Lsn.parse(row.getString(4)), row.getString(5),
						row.getTimestamp(6)),
				listenerId);
		int replayed = 0;
		for (Letter letter : letters) {
			Change change = change(letter);
			try {
				invoke(endpoint, change);
			}
			catch (RuntimeException ex) {
				Throwable cause = (ex instanceof ListenerExecutionFailedException && ex.getCause() != null)
						? ex.getCause() : ex;
				logger.warn("Listener '{}' failed again on dead letter {} ({} on {}): {}", listenerId, change.id(),
						change.operation(), change.table(), cause.getClass().getName());
				return new Replay(listenerId, replayed, letters.size() - replayed, change.id(),
						cause.getClass().getName());
			}
			this.jdbc.update("DELETE FROM " + this.table + " WHERE id = ?", letter.id);
			replayed++;
		}
		logger.info("Listener '{}' replayed {} dead letter(s) from {}", listenerId, replayed, this.table);
		return new Replay(listenerId, replayed, 0, null, null);
	}

	private static void invoke(ListenerEndpoint endpoint, Change change) {
		Acknowledgment none = () -> {
		};
		if (endpoint.invoker() instanceof ChangeInvoker changes) {
			if (changes.accepts(change)) {
				changes.invoke(change, none);
			}
		}
		else if (endpoint.invoker() instanceof TransactionInvoker transactions) {
			transactions.invoke(new Transaction(change.xid(), change.commitLsn(), change.commitLsn(),
					change.commitTime(), null, List.of(change)), none);
		}
	}

	private Change change(Letter letter) {
		Map<String, @Nullable Object> values = new LinkedHashMap<>();
		this.jdbc.query("SELECT e.key, jsonb_typeof(e.value), e.value #>> '{}' FROM " + this.table
				+ " d, jsonb_each(d.change_row) WITH ORDINALITY e(key, value, n)"
				+ " LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = to_regclass(?) AND a.attname = e.key"
				+ " WHERE d.id = ? ORDER BY a.attnum NULLS LAST, e.n", (row) -> {
					values.put(row.getString(1), value(row.getString(2), row.getString(3)));
				}, PgIdentifiers.quote(letter.table), letter.id);
		Row row = values.isEmpty() ? null : Row.of(values);
		boolean delete = letter.operation == Operation.DELETE;
		Instant time = (letter.failedAt != null) ? letter.failedAt.toInstant() : Instant.EPOCH;
		return new Change(letter.operation, letter.table, delete ? row : null, delete ? null : row, 0, letter.commitLsn,
				time, 0, letter.changeId);
	}

	private static @Nullable Object value(String type, @Nullable String text) {
		if (text == null || "null".equals(type)) {
			return null;
		}
		return switch (type) {
			case "number" -> number(text);
			case "boolean" -> Boolean.valueOf(text);
			default -> text;
		};
	}

	private static Object number(String text) {
		BigDecimal number = new BigDecimal(text);
		try {
			return number.longValueExact();
		}
		catch (ArithmeticException ex) {
			return number;
		}
	}

	/**
	 * What a replay did.
	 *
	 * @param listenerId the listener
	 * @param replayed dead letters the listener took, deleted from the table
	 * @param remaining dead letters left, the failed one first
	 * @param failedChange the id of the change the listener failed on again, or
	 * {@code null}
	 * @param failure the class of the exception it threw, or {@code null}
	 */
	public record Replay(String listenerId, int replayed, int remaining, @Nullable String failedChange,
			@Nullable String failure) {

	}

	private record Letter(long id, TableId table, Operation operation, Lsn commitLsn, String changeId,
			@Nullable Timestamp failedAt) {

	}

}
