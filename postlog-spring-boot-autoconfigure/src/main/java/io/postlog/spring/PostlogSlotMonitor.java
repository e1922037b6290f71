package io.postlog.spring;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import javax.sql.DataSource;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.TableId;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.ReplicationSettings;
import io.postlog.admin.SlotInfo;
import io.postlog.snapshot.SnapshotHandOff;
import org.jspecify.annotations.Nullable;

/**
 * Reads the slot's state and the server's position over the application's
 * {@link DataSource}, for health, metrics and the actuator endpoint. Thread-safe.
 */
public final class PostlogSlotMonitor {

	private final DataSource dataSource;

	private final String slotName;

	private final String publicationName;

	/**
	 * Creates a monitor.
	 * @param dataSource the application's data source
	 * @param slotName the slot to watch
	 * @param publicationName the publication to describe
	 */
	public PostlogSlotMonitor(DataSource dataSource, String slotName, String publicationName) {
		this.dataSource = dataSource;
		this.slotName = slotName;
		this.publicationName = publicationName;
	}

	/**
	 * Returns the slot name.
	 * @return the slot name
	 */
	public String slotName() {
		return this.slotName;
	}

	/**
	 * Returns the publication name.
	 * @return the publication name
	 */
	public String publicationName() {
		return this.publicationName;
	}

	/**
	 * Reads the slot, the server's WAL position and its replication settings.
	 * @return the status
	 * @throws PostlogException if the database cannot be reached
	 */
	public SlotStatus status() {
		try (Connection connection = this.dataSource.getConnection()) {
			ReplicationAdmin admin = new ReplicationAdmin(connection);
			SlotInfo slot = admin.slot(this.slotName).orElse(null);
			// While an initial snapshot runs on PostgreSQL 12+, only its temporary slot
			// exists.
			SlotInfo snapshotSlot = (slot == null)
					? admin.slot(SnapshotHandOff.snapshotSlotName(this.slotName)).orElse(null) : null;
			return new SlotStatus(this.slotName, slot, admin.walPosition(), admin.replicationSettings(), snapshotSlot);
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not read replication slot '" + this.slotName + "'", ex);
		}
	}

	/**
	 * Reads every logical slot on the server, with the settings and position to judge
	 * them by.
	 * @return the server's slots
	 * @throws PostlogException if the database cannot be reached
	 */
	public ServerStatus server() {
		try (Connection connection = this.dataSource.getConnection()) {
			ReplicationAdmin admin = new ReplicationAdmin(connection);
			return new ServerStatus(admin.currentDatabase(), admin.walPosition(), admin.replicationSettings(),
					admin.logicalSlots());
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not read the server's replication slots", ex);
		}
	}

	/**
	 * Reads the publication's tables.
	 * @return the tables, empty if the publication does not exist
	 * @throws PostlogException if the database cannot be reached
	 */
	public List<TableId> publicationTables() {
		try (Connection connection = this.dataSource.getConnection()) {
			return new ReplicationAdmin(connection).publicationTables(this.publicationName);
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not read publication '" + this.publicationName + "'", ex);
		}
	}

	/**
	 * Reads the server's current WAL position ({@code pg_current_wal_lsn()}).
	 * @return the position
	 */
	public Lsn currentLsn() {
		try (Connection connection = this.dataSource.getConnection()) {
			return new ReplicationAdmin(connection).currentLsn();
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not read the server's WAL position", ex);
		}
	}

	/**
	 * The slot as the server reports it.
	 *
	 * @param slotName the slot's name
	 * @param slot the slot, or {@code null} if it does not exist
	 * @param currentLsn the server's WAL position (on a standby, the replayed one)
	 * @param settings the server's replication settings
	 * @param snapshotSlot when the slot does not exist, the temporary slot of an initial
	 * snapshot being taken for it (by this instance or another), else {@code null}
	 */
	public record SlotStatus(String slotName, @Nullable SlotInfo slot, Lsn currentLsn, ReplicationSettings settings,
			@Nullable SlotInfo snapshotSlot) {

		/**
		 * Creates the status of a slot without a snapshot being taken for it.
		 * @param slotName the slot's name
		 * @param slot the slot, or {@code null}
		 * @param currentLsn the server's WAL position
		 * @param settings the server's replication settings
		 */
		public SlotStatus(String slotName, @Nullable SlotInfo slot, Lsn currentLsn, ReplicationSettings settings) {
			this(slotName, slot, currentLsn, settings, null);
		}

		/**
		 * Returns the WAL the slot retains beyond its confirmed position.
		 * @return the bytes, or {@code null} if the slot or its position is missing
		 */
		public @Nullable Long lagBytes() {
			Lsn confirmed = (this.slot != null) ? this.slot.confirmedFlushLsn() : null;
			return (confirmed != null && confirmed.isValid()) ? Math.max(0, this.currentLsn.minus(confirmed)) : null;
		}

		/**
		 * Returns the WAL the slot makes the server keep, from its {@code restart_lsn}.
		 * @return the bytes, or {@code null} if the slot is missing or reserves none
		 */
		public @Nullable Long retainedBytes() {
			return (this.slot != null) ? this.slot.retainedBytes(this.currentLsn) : null;
		}

	}

	/**
	 * Every logical slot on the server.
	 *
	 * @param database the database the application is connected to
	 * @param position the server's WAL position
	 * @param settings the server's replication settings
	 * @param slots the logical slots of every database
	 */
	public record ServerStatus(String database, Lsn position, ReplicationSettings settings, List<SlotInfo> slots) {

		/**
		 * Creates a server status.
		 * @param database the database
		 * @param position the position
		 * @param settings the settings
		 * @param slots the slots
		 */
		public ServerStatus {
			slots = List.copyOf(slots);
		}

	}

}
