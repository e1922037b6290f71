package io.postlog.snapshot;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.zip.CRC32;

import io.postlog.TableId;
import io.postlog.admin.PgErrors;
import io.postlog.admin.PgIdentifiers;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotConflictException;
import io.postlog.admin.SlotInUseException;
import io.postlog.admin.SlotInfo;
import io.postlog.admin.SlotLifecycle;
import io.postlog.admin.SlotNotFoundException;
import io.postlog.admin.SlotPluginMismatchException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The crash-safe hand-off from an initial snapshot to the slot's stream: a slot is ever
 * streamed only after a complete snapshot of it was delivered, so a crash at any moment
 * ends, after restart, in a new complete snapshot followed by the stream, never in a
 * partial one followed by the stream.
 * <ul>
 * <li><b>PostgreSQL 12 and later</b> ({@link Method#COPY_TEMPORARY_SLOT}): the snapshot
 * is exported with a temporary slot ({@link #snapshotSlotName}); when every row was
 * delivered, {@link #complete} copies it into the permanent slot with
 * {@code pg_copy_logical_replication_slot}, whose position is the snapshot's consistent
 * point. Until then no permanent slot exists, and a crash drops the temporary one with
 * its connection: the restart finds no slot and snapshots again.
 * <li><b>PostgreSQL 10 and 11</b> ({@link Method#MARKER_TABLE}), which cannot copy a
 * slot: a marker row ({@code started}) is written to a table of postlog's before the
 * permanent slot is created with its exported snapshot, and set to {@code complete} by
 * {@link #complete}. A restart that finds the slot with its marker still {@code started}
 * drops the slot and snapshots again.
 * <li><b>Resumable</b> ({@link Method#RESUMABLE}, any version, asked for by
 * {@link #open(Connection, String, SlotLifecycle, TableId, boolean)}): as on 10 and 11,
 * the marker says {@code started} before the permanent slot is created with its exported
 * snapshot; the caller then records the snapshot's chunks and calls {@link #planned},
 * which sets the marker to {@code planned}. A restart that finds the slot with that
 * marker decides {@link Action#RESUME}: the slot is streamed from its consistent point
 * while the chunks not yet done are read as a backfill; one that finds {@code started}
 * (nothing was delivered) drops the slot and snapshots again.
 * <li><b>Temporary slots</b> ({@link Method#TEMPORARY_SLOT}): the snapshot's own slot is
 * the one streamed, on the same connection ({@link ExportedSnapshot#takeConnection()});
 * nothing survives a restart, which takes a new snapshot.
 * </ul>
 * Two processes never snapshot the same slot at once: {@link #open} takes a session
 * advisory lock on the replication connection, held until it closes, and a second one is
 * refused with {@link SlotInUseException} (wait and retry, as for a slot in use).
 * <p>
 * Use, on one thread: {@link #open}, {@link #decide}; on {@link Action#SNAPSHOT}:
 * {@link #exportSnapshot}, read and deliver every row ({@link SnapshotReader}), then
 * {@link #complete} once every listener returned; finally {@link #close()}. The admin
 * connections passed in are ordinary auto-commit connections, borrowed per call.
 */
public final class SnapshotHandOff implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(SnapshotHandOff.class);

	/** {@code pg_copy_logical_replication_slot} came with PostgreSQL 12. */
	static final int COPY_SLOT_VERSION = 120000;

	/** First key of the advisory lock: "plog". */
	static final int LOCK_CLASS = 0x706c6f67;

	private final Connection replication;

	private final String slotName;

	private final SlotLifecycle lifecycle;

	private final TableId markerTable;

	private final Method method;

	private @Nullable Decision decision;

	private @Nullable ExportedSnapshot snapshot;

	private boolean completed;

	private boolean closed;

	private SnapshotHandOff(Connection replication, String slotName, SlotLifecycle lifecycle, TableId markerTable,
			Method method) {
		this.replication = replication;
		this.slotName = slotName;
		this.lifecycle = lifecycle;
		this.markerTable = markerTable;
		this.method = method;
	}

	/**
	 * Starts a hand-off: takes the slot's snapshot lock on a fresh replication
	 * connection, which the hand-off owns from then on (and closes if this fails).
	 * @param replicationConnection a fresh connection with {@code replication=database},
	 * simple query mode
	 * @param slotName the slot to stream from
	 * @param lifecycle the slot's lifecycle
	 * @param markerTable the marker table PostgreSQL 10 and 11 use (created there when
	 * needed; unused from 12 on)
	 * @return the hand-off
	 * @throws SlotInUseException if another process is snapshotting this slot
	 */
	public static SnapshotHandOff open(Connection replicationConnection, String slotName, SlotLifecycle lifecycle,
			TableId markerTable) {
		return open(replicationConnection, slotName, lifecycle, markerTable, null);
	}

	/**
	 * Starts a hand-off, resumable when asked for and the slot is not temporary.
	 * @param replicationConnection a fresh connection with {@code replication=database},
	 * simple query mode
	 * @param slotName the slot to stream from
	 * @param lifecycle the slot's lifecycle
	 * @param markerTable the marker table
	 * @param resumable whether the caller records chunks ({@link Method#RESUMABLE})
	 * @return the hand-off
	 * @throws SlotInUseException if another process is snapshotting this slot
	 */
	public static SnapshotHandOff open(Connection replicationConnection, String slotName, SlotLifecycle lifecycle,
			TableId markerTable, boolean resumable) {
		return open(replicationConnection, slotName, lifecycle, markerTable, resumable ? Method.RESUMABLE : null);
	}

	/**
	 * Starts a hand-off with a given method for a permanent slot, so that the marker
	 * table's path is tested on servers that could copy the slot too.
	 */
	static SnapshotHandOff open(Connection replicationConnection, String slotName, SlotLifecycle lifecycle,
			TableId markerTable, @Nullable Method permanentMethod) {
		Objects.requireNonNull(replicationConnection, "replicationConnection");
		try {
			PgIdentifiers.requireSlotName(slotName);
			Objects.requireNonNull(lifecycle, "lifecycle");
			PgIdentifiers.quote(markerTable);
			int version = ExportedSnapshot.serverVersion(replicationConnection);
			try (Statement statement = replicationConnection.createStatement()) {
				try (ResultSet row = statement
					.executeQuery("SELECT pg_try_advisory_lock(" + LOCK_CLASS + ", " + lockKey(slotName) + ")")) {
					row.next();
					if (!row.getBoolean(1)) {
						throw new SlotInUseException(slotName, null, null);
					}
				}
			}
			Method method = (lifecycle == SlotLifecycle.TEMPORARY) ? Method.TEMPORARY_SLOT
					: (permanentMethod != null) ? permanentMethod
							: (version >= COPY_SLOT_VERSION) ? Method.COPY_TEMPORARY_SLOT : Method.MARKER_TABLE;
			return new SnapshotHandOff(replicationConnection, slotName, lifecycle, markerTable, method);
		}
		catch (SQLException ex) {
			closeQuietly(replicationConnection);
			throw new SnapshotException("Could not take the snapshot lock of slot '" + slotName + "' (SQLState "
					+ PgErrors.sqlState(ex) + ")", ex);
		}
		catch (RuntimeException ex) {
			closeQuietly(replicationConnection);
			throw ex;
		}
	}

	/**
	 * Decides whether a snapshot is to be taken. A slot that exists is streamed as it is
	 * (its snapshot, if it had one, was delivered when it was created), except on
	 * PostgreSQL 10 and 11 when its marker says the snapshot never completed: that slot
	 * is dropped here, and the snapshot taken again.
	 * @param admin an ordinary connection to the same database
	 * @return the decision
	 * @throws SnapshotRefusedException for {@link SlotLifecycle#EXISTING} when the slot
	 * exists: it already has a position, so there is nothing to hand a snapshot over from
	 * @throws SlotNotFoundException for {@link SlotLifecycle#EXISTING} when it does not
	 * @throws SlotPluginMismatchException if the slot belongs to another plugin or
	 * database
	 * @throws SlotConflictException if a permanent slot is in the way of a temporary one
	 * @throws SlotInUseException if a slot to be dropped or created is held by another
	 * process
	 */
	public Decision decide(Connection admin) {
		requireOpen();
		if (this.decision != null) {
			throw new IllegalStateException("The hand-off of slot '" + this.slotName + "' has decided already");
		}
		Decision decision = new HandOffDecider(this.slotName, this.lifecycle, this.markerTable, this.method)
			.decide(admin);
		this.decision = decision;
		logger.info("Slot '{}': {} ({})", this.slotName, switch (decision.action()) {
			case SNAPSHOT -> "taking an initial snapshot";
			case RESUME -> "resuming its initial snapshot";
			case STREAM -> "streaming without a snapshot";
		}, decision.reason());
		return decision;
	}

	/**
	 * Returns the refusal of an initial snapshot on a slot that must already exist.
	 * @param slotName the slot
	 * @param slot the slot as it is
	 * @return the exception to throw
	 */
	public static SnapshotRefusedException refusedForExistingSlot(String slotName, SlotInfo slot) {
		return new SnapshotRefusedException("An initial snapshot needs postlog to create slot '" + slotName
				+ "', but the slot exists already (confirmed at " + slot.confirmedFlushLsn()
				+ "): there is no exported snapshot to hand over from. Use slot lifecycle create-if-missing"
				+ " or owned, or snapshot mode never");
	}

	/**
	 * Creates the slot the snapshot is exported with: temporary on 12 and later (and for
	 * temporary slots), the permanent slot itself on 10 and 11 after its marker was
	 * written. The replication connection then belongs to the returned snapshot; it stays
	 * idle until {@link #complete} or {@link #close()}.
	 * @param admin an ordinary connection to the same database
	 * @return the snapshot
	 * @throws IllegalStateException unless {@link #decide} said {@link Action#SNAPSHOT}
	 */
	public ExportedSnapshot exportSnapshot(Connection admin) {
		requireOpen();
		if (this.decision == null || this.decision.action() != Action.SNAPSHOT || this.snapshot != null) {
			throw new IllegalStateException("Slot '" + this.slotName + "' has no snapshot to export: "
					+ ((this.snapshot != null) ? "it was exported already" : "decide() did not ask for one"));
		}
		ExportedSnapshot snapshot = switch (this.method) {
			case COPY_TEMPORARY_SLOT ->
				ExportedSnapshot.create(this.replication, snapshotSlotName(this.slotName), true, this.slotName);
			case TEMPORARY_SLOT -> ExportedSnapshot.create(this.replication, this.slotName, true, this.slotName);
			case MARKER_TABLE, RESUMABLE -> {
				SnapshotMarkers markers = new SnapshotMarkers(admin, this.markerTable);
				markers.ensureTable();
				markers.started(this.slotName);
				ExportedSnapshot created = ExportedSnapshot.create(this.replication, this.slotName, false,
						this.slotName);
				try {
					markers.consistentPoint(this.slotName, created.consistentPoint());
				}
				catch (RuntimeException ex) {
					created.close();
					throw ex;
				}
				yield created;
			}
		};
		this.snapshot = snapshot;
		return snapshot;
	}

	/**
	 * Hands the slot over to the stream, once every snapshot row was delivered and every
	 * listener returned (and acknowledged): on 12 and later copies the temporary slot
	 * into the permanent one; on 10 and 11 marks the snapshot complete. The stream then
	 * starts at the slot's confirmed position, the snapshot's consistent point.
	 * @param admin an ordinary connection to the same database
	 * @return the slot to stream from
	 * @throws SlotConflictException if the permanent slot appeared meanwhile
	 * @throws SnapshotException if the snapshot's slot is gone (its connection ended), so
	 * the snapshot cannot be handed over and must be taken again
	 */
	public SlotInfo complete(Connection admin) {
		requireOpen();
		ExportedSnapshot snapshot = this.snapshot;
		if (snapshot == null || this.completed) {
			throw new IllegalStateException(
					"Slot '" + this.slotName + "' has " + ((snapshot == null) ? "no snapshot" : "been handed over"));
		}
		ReplicationAdmin replicationAdmin = new ReplicationAdmin(admin);
		SlotInfo slot = switch (this.method) {
			case COPY_TEMPORARY_SLOT -> copySlot(admin, replicationAdmin, snapshot);
			case MARKER_TABLE, RESUMABLE -> {
				if (!new SnapshotMarkers(admin, this.markerTable).complete(this.slotName)) {
					throw new SnapshotException("The snapshot marker of slot '" + this.slotName + "' in "
							+ this.markerTable + " no longer says started; the snapshot cannot be handed over", null);
				}
				yield requireSlot(replicationAdmin, this.slotName);
			}
			case TEMPORARY_SLOT -> requireSlot(replicationAdmin, this.slotName);
		};
		this.completed = true;
		logger.info("Initial snapshot of slot '{}' complete; the stream starts at its consistent point {}",
				this.slotName, snapshot.consistentPoint());
		return slot;
	}

	/**
	 * Records that a resumable snapshot's chunks are recorded: from here on a crash
	 * resumes it ({@link Action#RESUME}) instead of taking it again.
	 * @param admin an ordinary connection to the same database
	 * @throws IllegalStateException unless this hand-off is {@link Method#RESUMABLE} and
	 * exported its snapshot
	 * @throws SnapshotException if the marker no longer says {@code started}
	 */
	public void planned(Connection admin) {
		requireOpen();
		if (this.method != Method.RESUMABLE || this.snapshot == null || this.completed) {
			throw new IllegalStateException("Slot '" + this.slotName + "' has no resumable snapshot to mark planned");
		}
		if (!new SnapshotMarkers(admin, this.markerTable).planned(this.slotName)) {
			throw new SnapshotException("The snapshot marker of slot '" + this.slotName + "' in " + this.markerTable
					+ " no longer says started; the snapshot's chunks were not recorded as planned", null);
		}
	}

	private SlotInfo copySlot(Connection admin, ReplicationAdmin replicationAdmin, ExportedSnapshot snapshot) {
		try (PreparedStatement statement = admin
			.prepareStatement("SELECT slot_name FROM pg_catalog.pg_copy_logical_replication_slot(?, ?, false)")) {
			statement.setString(1, snapshot.slotName());
			statement.setString(2, this.slotName);
			statement.executeQuery().close();
		}
		catch (SQLException ex) {
			if (PgErrors.isDuplicateObject(ex)) {
				throw new SlotConflictException(
						"Replication slot '" + this.slotName + "' was created by someone else"
								+ " while its initial snapshot ran; the snapshot was not handed over",
						requireSlot(replicationAdmin, this.slotName));
			}
			throw new SnapshotException("Could not copy the snapshot's temporary slot '" + snapshot.slotName()
					+ "' into slot '" + this.slotName + "' (SQLState " + PgErrors.sqlState(ex) + "); "
					+ (PgErrors.isUndefinedObject(ex)
							? "its replication connection ended, so the snapshot must" + " be taken again"
							: "the snapshot was not handed over"),
					ex);
		}
		SlotInfo slot = requireSlot(replicationAdmin, this.slotName);
		if (!snapshot.consistentPoint().equals(slot.confirmedFlushLsn())) {
			throw new SnapshotException(
					"Slot '" + this.slotName + "' was copied confirmed at " + slot.confirmedFlushLsn()
							+ ", not at the snapshot's consistent point " + snapshot.consistentPoint(),
					null);
		}
		return slot;
	}

	/**
	 * Returns the replication connection's holder: the snapshot once exported.
	 * @return the snapshot, or {@code null} before {@link #exportSnapshot}
	 */
	public @Nullable ExportedSnapshot snapshot() {
		return this.snapshot;
	}

	/**
	 * Returns how this server hands a snapshot over.
	 * @return the method
	 */
	public Method method() {
		return this.method;
	}

	/**
	 * Closes the replication connection (unless the snapshot's connection was taken),
	 * which releases the lock, ends the exported snapshot and drops a temporary slot.
	 * Before {@link #complete}, whatever was created is left for the next start to redo.
	 * Idempotent.
	 */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		if (this.snapshot != null) {
			this.snapshot.close();
		}
		else {
			closeQuietly(this.replication);
		}
		if (this.snapshot != null && !this.completed) {
			logger.warn("The initial snapshot of slot '{}' ended before it was handed over; the next start takes it"
					+ " again", this.slotName);
		}
	}

	/**
	 * Returns the name of the temporary slot a permanent slot's snapshot is taken with:
	 * {@code <slot>_snapshot}, or, for names too long for that, a shortened name with a
	 * hash of the whole name.
	 * @param slotName the permanent slot
	 * @return the temporary slot's name
	 */
	public static String snapshotSlotName(String slotName) {
		PgIdentifiers.requireSlotName(slotName);
		String name = slotName + "_snapshot";
		if (name.length() <= 63) {
			return name;
		}
		return slotName.substring(0, 40) + "_snapshot_" + String.format("%08x", lockKey(slotName));
	}

	static int lockKey(String slotName) {
		CRC32 crc = new CRC32();
		crc.update(slotName.getBytes(StandardCharsets.UTF_8));
		return (int) crc.getValue();
	}

	private void requireOpen() {
		if (this.closed) {
			throw new IllegalStateException("The hand-off of slot '" + this.slotName + "' is closed");
		}
	}

	private static SlotInfo requireSlot(ReplicationAdmin admin, String slotName) {
		return admin.slot(slotName).orElseThrow(() -> new SlotNotFoundException(slotName, null));
	}

	private static void closeQuietly(Connection connection) {
		try {
			connection.close();
		}
		catch (SQLException ex) {
			logger.debug("Closing a snapshot hand-off's replication connection failed", ex);
		}
	}

	/**
	 * How the server hands a snapshot over to the stream.
	 */
	public enum Method {

		/**
		 * PostgreSQL 12+: temporary slot, copied into the permanent one when complete.
		 */
		COPY_TEMPORARY_SLOT,

		/** PostgreSQL 10 and 11: permanent slot and a durable marker row. */
		MARKER_TABLE,

		/**
		 * Any version: permanent slot and a durable marker row; the caller records the
		 * chunks, and a crash resumes the snapshot instead of taking it again.
		 */
		RESUMABLE,

		/** A temporary slot, streamed on the snapshot's own connection. */
		TEMPORARY_SLOT

	}

	/**
	 * What a start does.
	 */
	public enum Action {

		/** Stream the slot from its confirmed position; no snapshot. */
		STREAM,

		/** Take a snapshot, deliver it, hand over, then stream. */
		SNAPSHOT,

		/**
		 * Stream the slot from its confirmed position (the interrupted snapshot's
		 * consistent point) and read the chunks the snapshot did not finish as a
		 * backfill.
		 */
		RESUME

	}

	/**
	 * The decision and why.
	 *
	 * @param action what to do
	 * @param reason why, for the log
	 */
	public record Decision(Action action, String reason) {

		/**
		 * Creates a decision.
		 * @param action what to do
		 * @param reason why
		 */
		public Decision {
			Objects.requireNonNull(action, "action");
			Objects.requireNonNull(reason, "reason");
		}

	}

}
