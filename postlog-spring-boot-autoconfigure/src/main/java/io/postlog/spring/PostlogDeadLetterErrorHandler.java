package io.postlog.spring;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.postlog.Change;
import io.postlog.PostlogException;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.admin.PgErrors;
import io.postlog.admin.PgIdentifiers;
import io.postlog.json.RowJson;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcOperations;

/**
 * The {@code dead-letter} error handler: writes the change a listener kept failing on to
 * the dead-letter table ({@code postlog.listener.dead-letter-table}, by default
 * {@code postlog_dead_letter}) in the application's database, then lets delivery go on;
 * {@link DeadLetters#replay} gives them to their listener again. The row and its
 * replica-identity key are stored as {@code jsonb} (failures.md says how values map to
 * JSON); a change dead-lettered again after a redelivery is not stored twice. A failed
 * insert stops the listener's group, so nothing is lost; its exception names the change,
 * the exception class and the SQLState, never the server's text (which can quote the
 * row). Thread-safe.
 */
public final class PostlogDeadLetterErrorHandler implements PgListenerErrorHandler {

	/** The default dead-letter table. */
	public static final String TABLE = "postlog_dead_letter";

	/** Creates the default dead-letter table if it is missing. */
	public static final String DDL = ddl(TABLE);

	private static final String COLUMNS = " (\n" + "\tid bigserial PRIMARY KEY,\n" + "\tslot_name text NOT NULL,\n"
			+ "\tlistener_id text NOT NULL,\n" + "\tchange_id text NOT NULL,\n" + "\ttable_name text NOT NULL,\n"
			+ "\toperation text NOT NULL,\n" + "\tcommit_lsn pg_lsn NOT NULL,\n" + "\tchange_key jsonb,\n"
			+ "\tchange_row jsonb,\n" + "\texception_class text NOT NULL,\n" + "\texception_message text,\n"
			+ "\tfailed_at timestamptz NOT NULL DEFAULT now(),\n" + "\tUNIQUE (listener_id, change_id)\n" + ")";

	private static final String INSERT_COLUMNS = " (slot_name, listener_id, change_id, table_name, operation, commit_lsn, change_key, change_row, "
			+ "exception_class, exception_message) VALUES (?, ?, ?, ?, ?, ?::pg_lsn, ?::jsonb, ?::jsonb, ?, ?) "
			+ "ON CONFLICT (listener_id, change_id) DO NOTHING";

	private static final String KEY = "SELECT a.attname FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid "
			+ "JOIN pg_namespace n ON n.oid = c.relnamespace "
			+ "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey) "
			+ "WHERE n.nspname = ? AND c.relname = ? "
			+ "AND (CASE WHEN c.relreplident = 'i' THEN i.indisreplident ELSE i.indisprimary END) ORDER BY a.attnum";

	private static final Logger logger = LoggerFactory.getLogger(PostlogDeadLetterErrorHandler.class);

	private final JdbcOperations jdbc;

	private final Function<String, String> slotNames;

	private final Map<TableId, List<String>> keys = new ConcurrentHashMap<>();

	private final String table;

	private final String insert;

	/**
	 * Creates a handler.
	 * @param jdbc the application's database
	 * @param slotNames the slot of each group, by group name (empty for the default
	 * group)
	 */
	public PostlogDeadLetterErrorHandler(JdbcOperations jdbc, Function<String, String> slotNames) {
		this(jdbc, slotNames, TableId.parse(TABLE));
	}

	/**
	 * Creates a handler writing to a table of the user's choosing.
	 * @param jdbc the application's database
	 * @param slotNames the slot of each group, by group name (empty for the default
	 * group)
	 * @param table the dead-letter table
	 * @throws io.postlog.admin.InvalidIdentifierException if the table's name is not a
	 * valid identifier
	 */
	public PostlogDeadLetterErrorHandler(JdbcOperations jdbc, Function<String, String> slotNames, TableId table) {
		this.jdbc = jdbc;
		this.slotNames = slotNames;
		this.table = PgIdentifiers.quote(table);
		this.insert = "INSERT INTO " + this.table + INSERT_COLUMNS;
	}

	/**
	 * Returns the statement that creates a dead-letter table if it is missing.
	 * @param quotedTable the table, quoted
	 * @return the statement
	 */
	static String ddl(String quotedTable) {
		return "CREATE TABLE IF NOT EXISTS " + quotedTable + COLUMNS;
	}

	/**
	 * Creates the dead-letter table if it does not exist.
	 */
	public void createTableIfMissing() {
		this.jdbc.execute(ddl(this.table));
	}

	@Override
	public void handleError(Change change, ListenerExecutionFailedException exception) {
		Throwable cause = (exception.getCause() != null) ? exception.getCause() : exception;
		Row row = change.row();
		try {
			this.jdbc.update(this.insert, this.slotNames.apply(exception.group()), exception.listenerId(), change.id(),
					change.table().toString(), change.operation().name(), change.commitLsn().toString(),
					key(change, row), (row != null) ? RowJson.row(row) : null, cause.getClass().getName(),
					cause.getMessage());
		}
		catch (DataAccessException ex) {
			// The server's text (and Spring's, which repeats it) can quote the row: a
			// rejected insert is described by class and SQLState, and its cause left out.
			SQLException server = PgErrors.serverError(ex);
			throw new PostlogException("Listener '" + exception.listenerId() + "' could not dead-letter change "
					+ change.id() + " (" + change.operation() + " on " + change.table() + ") into " + this.table + ": "
					+ ex.getClass().getSimpleName() + ((server != null) ? ", " + PgErrors.describe(server) : ""));
		}
		logger.warn("Listener '{}' dead-lettered change {} ({} on {}, commit LSN {}) into {}", exception.listenerId(),
				change.id(), change.operation(), change.table(), change.commitLsn(), this.table);
	}

	private @Nullable String key(Change change, @Nullable Row row) {
		if (row == null) {
			return null;
		}
		List<String> key = this.keys.computeIfAbsent(change.table(),
				(table) -> this.jdbc.queryForList(KEY, String.class, table.schema(), table.name()));
		return key.isEmpty() ? null : RowJson.row(row, key);
	}

}
