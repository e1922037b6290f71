package io.postlog.snapshot;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

import io.postlog.TableId;
import io.postlog.admin.PgErrors;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotConflictException;
import io.postlog.admin.SlotInUseException;
import io.postlog.admin.SlotInfo;
import io.postlog.admin.SlotLifecycle;
import io.postlog.admin.SlotNotFoundException;
import io.postlog.admin.SlotPluginMismatchException;
import io.postlog.snapshot.SnapshotHandOff.Action;
import io.postlog.snapshot.SnapshotHandOff.Decision;
import io.postlog.snapshot.SnapshotHandOff.Method;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decision of {@link SnapshotHandOff#decide}: what a start finds of the slot, its
 * snapshot's marker and its snapshot's temporary slot, and whether it streams, resumes or
 * snapshots. It owns the one destructive step of deciding: the slot of a snapshot that
 * was interrupted before it was handed over (and cannot be resumed) is dropped with its
 * marker, so that the snapshot is taken again. Logs under {@link SnapshotHandOff}'s
 * category. One use, on the hand-off's thread.
 */
final class HandOffDecider {

	private static final Logger logger = LoggerFactory.getLogger(SnapshotHandOff.class);

	private final String slotName;

	private final SlotLifecycle lifecycle;

	private final TableId markerTable;

	private final Method method;

	HandOffDecider(String slotName, SlotLifecycle lifecycle, TableId markerTable, Method method) {
		this.slotName = slotName;
		this.lifecycle = lifecycle;
		this.markerTable = markerTable;
		this.method = method;
	}

	/**
	 * Decides, as {@link SnapshotHandOff#decide} documents.
	 * @param admin an ordinary connection to the same database
	 * @return the decision
	 */
	Decision decide(Connection admin) {
		ReplicationAdmin replicationAdmin = new ReplicationAdmin(admin);
		replicationAdmin.requireLogicalWalLevel();
		Optional<SlotInfo> existing = replicationAdmin.slot(this.slotName);
		Decision decision = switch (this.lifecycle) {
			case EXISTING -> throw SnapshotHandOff.refusedForExistingSlot(this.slotName,
					existing.orElseThrow(() -> new SlotNotFoundException(this.slotName, null)));
			case TEMPORARY -> {
				if (existing.isPresent() && !existing.get().temporary()) {
					throw new SlotConflictException(
							"A permanent replication slot '" + this.slotName
									+ "' exists where a temporary one was asked for; use another slot name or drop it",
							existing.get());
				}
				if (existing.isPresent()) {
					throw new SlotInUseException(this.slotName, existing.get().activePid(), null);
				}
				yield new Decision(Action.SNAPSHOT, "temporary slot");
			}
			case CREATE_IF_MISSING, OWNED -> decidePermanent(admin, replicationAdmin, existing.orElse(null));
		};
		if (decision.action() == Action.SNAPSHOT && this.method == Method.COPY_TEMPORARY_SLOT) {
			requireNoSnapshotSlot(replicationAdmin);
		}
		return decision;
	}

	private Decision decidePermanent(Connection admin, ReplicationAdmin replicationAdmin, @Nullable SlotInfo slot) {
		if (slot == null) {
			return new Decision(Action.SNAPSHOT, "the slot does not exist yet");
		}
		String database = currentDatabase(admin);
		if (!ReplicationAdmin.PLUGIN.equals(slot.plugin()) || !database.equals(slot.database())) {
			throw new SlotPluginMismatchException(slot, ReplicationAdmin.PLUGIN, database);
		}
		SnapshotMarkers markers = new SnapshotMarkers(admin, this.markerTable);
		String marker = markers.state(this.slotName).orElse(SnapshotMarkers.COMPLETE);
		if (SnapshotMarkers.COMPLETE.equals(marker)) {
			return new Decision(Action.STREAM, "the slot exists");
		}
		if (slot.active()) {
			throw new SlotInUseException(this.slotName, slot.activePid(), null);
		}
		if (SnapshotMarkers.PLANNED.equals(marker) && this.method == Method.RESUMABLE) {
			return new Decision(Action.RESUME, "an earlier snapshot of the slot was interrupted; the rows it did not"
					+ " deliver are read as a backfill while the slot streams from its consistent point");
		}
		logger.warn("The initial snapshot of slot '{}' was interrupted before it completed (marker in {}); dropping"
				+ " the slot to take a new snapshot", this.slotName, this.markerTable);
		replicationAdmin.dropSlot(this.slotName);
		markers.delete(this.slotName);
		return new Decision(Action.SNAPSHOT, "an earlier snapshot of the slot was interrupted; slot dropped");
	}

	private void requireNoSnapshotSlot(ReplicationAdmin replicationAdmin) {
		String snapshotSlot = SnapshotHandOff.snapshotSlotName(this.slotName);
		Optional<SlotInfo> inTheWay = replicationAdmin.slot(snapshotSlot);
		if (inTheWay.isPresent() && !inTheWay.get().temporary()) {
			throw new SlotConflictException("Replication slot '" + snapshotSlot + "', the name postlog gives the"
					+ " temporary slot of slot '" + this.slotName + "'s snapshot, exists as a permanent slot;"
					+ " drop it or use another slot name", inTheWay.get());
		}
		if (inTheWay.isPresent()) {
			throw new SlotInUseException(snapshotSlot, inTheWay.get().activePid(), null);
		}
	}

	private static String currentDatabase(Connection admin) {
		try (Statement statement = admin.createStatement();
				ResultSet row = statement.executeQuery("SELECT current_database()")) {
			row.next();
			return row.getString(1);
		}
		catch (SQLException ex) {
			throw new SnapshotException("Could not read the database name (SQLState " + PgErrors.sqlState(ex) + ")",
					ex);
		}
	}

}
