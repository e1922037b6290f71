package io.postlog.consumer.backfill;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.UnchangedToast;
import io.postlog.consumer.delivery.Event;
import io.postlog.snapshot.BackfillReader;
import io.postlog.snapshot.BackfillTable;
import io.postlog.snapshot.SnapshotConnections;
import io.postlog.snapshot.SnapshotReadException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Merges the updates of tables being backfilled, for the {@link BackfillWindow}. An
 * update that does not resend a TOASTed value would give a subscription an
 * {@link UnchangedToast} for a row it may never have been given whole (its chunk row not
 * read yet, or dropped because that update won). While a table is being backfilled, such
 * an update is merged before it is delivered: the values it did not resend are read from
 * the table by key. That is the value the update left or a later one (whose own change
 * follows in the stream), never an earlier one; a row gone meanwhile has its delete
 * coming, and the update is left out. Merging instead of delivering the full row first
 * keeps one change per change, and needs no chunk row, which may not exist yet. The
 * values are read on a connection of its own. Not thread-safe but for {@link #activate}
 * and {@link #deactivate}: the delivery thread merges.
 */
final class ToastMerge {

	private static final Logger logger = LoggerFactory.getLogger(ToastMerge.class);

	private final @Nullable SnapshotConnections readers;

	private final String slotName;

	private final Map<TableId, BackfillTable> active = new ConcurrentHashMap<>();

	private volatile @Nullable BackfillReader reader;

	private @Nullable Connection merging;

	ToastMerge(@Nullable SnapshotConnections readers, String slotName) {
		this.readers = readers;
		this.slotName = slotName;
	}

	/** Merges a table's updates from now on. Thread-safe. */
	void activate(BackfillTable table, BackfillReader reader) {
		this.reader = reader;
		this.active.put(table.table(), table);
	}

	/** Ends {@link #activate}. Thread-safe. */
	void deactivate(TableId table) {
		this.active.remove(table);
	}

	/**
	 * Fills in the values an update did not resend, while its table is being backfilled.
	 * @return the change to deliver, or {@code null} to leave it out (the row is gone)
	 */
	Event.@Nullable ChangeArrived merged(Event.ChangeArrived arrived) {
		Change change = arrived.change();
		Row after = change.after();
		if (change.operation() != Operation.UPDATE || after == null || this.active.isEmpty()) {
			return arrived;
		}
		BackfillTable table = this.active.get(change.table());
		if (table == null) {
			return arrived;
		}
		List<String> missing = new ArrayList<>();
		for (String column : after.columns()) {
			if (after.isUnchangedToast(column)) {
				missing.add(column);
			}
		}
		if (missing.isEmpty()) {
			return arrived;
		}
		List<@Nullable Object> key = table.keyOf(after);
		if (key == null) {
			key = table.keyOf(change.before());
		}
		if (key == null) {
			return arrived;
		}
		@Nullable Object[] current = current(table, key, missing);
		if (current == null) {
			logger.debug("Slot {}: an update of {} whose row is gone is left out; its delete follows", this.slotName,
					change.table());
			return null;
		}
		List<String> columns = after.columns();
		@Nullable Object[] values = new Object[columns.size()];
		int next = 0;
		for (int i = 0; i < columns.size(); i++) {
			String column = columns.get(i);
			values[i] = after.isUnchangedToast(column) ? current[next++] : after.get(column);
		}
		Change filled = new Change(change.operation(), change.table(), change.before(),
				Row.ofOwned(Row.columns(columns), values), change.xid(), change.commitLsn(), change.commitTime(),
				change.index(), change.id());
		return new Event.ChangeArrived(filled, arrived.route(), arrived.previousRoute(), arrived.bytes());
	}

	private @Nullable Object @Nullable [] current(BackfillTable table, List<@Nullable Object> key,
			List<String> columns) {
		BackfillReader backfillReader = this.reader;
		SnapshotConnections connections = this.readers;
		if (backfillReader == null || connections == null) {
			throw new IllegalStateException("No backfill reader");
		}
		try {
			if (this.merging == null) {
				this.merging = connections.connect();
			}
			return backfillReader.current(this.merging, table, key, columns);
		}
		catch (SQLException ex) {
			closeConnection();
			throw new SnapshotReadException(
					"Could not read the TOASTed values an update of " + table.table() + " did not resend",
					table.table(), null, ex);
		}
	}

	/** Closes the connection merges read on; on the delivery thread as it ends. */
	void closeConnection() {
		Connection connection = this.merging;
		this.merging = null;
		if (connection != null) {
			try {
				connection.close();
			}
			catch (SQLException ex) {
				logger.debug("Closing the backfill merge connection failed", ex);
			}
		}
	}

}
