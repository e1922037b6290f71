package io.postlog.consumer;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.postlog.PostlogException;
import io.postlog.TableId;
import io.postlog.admin.InsufficientPrivilegeException;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotInUseException;
import io.postlog.admin.SlotInfo;
import io.postlog.admin.SlotLifecycle;
import io.postlog.admin.SlotLostException;
import io.postlog.admin.SlotNotFoundException;
import io.postlog.admin.StartupCheckRequest;
import io.postlog.admin.StartupChecks;
import io.postlog.admin.StartupReport;
import io.postlog.heartbeat.HeartbeatWriter;
import io.postlog.snapshot.SnapshotHandOff;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link ReplicationConsumer#start()} does before streaming: runs the start-up
 * checks ({@link StartupChecks}: failures thrown typed, warnings logged once with their
 * fix), acts on a lost slot ({@link LostSlots}), checks the slot under {@code EXISTING}
 * and, when it is to create the slot, the role's {@code REPLICATION} privilege before any
 * set-up SQL runs, then makes sure the publication and the slot (with failover when
 * asked) exist, in that order. Before PostgreSQL 14, with heartbeats tracked, it first
 * creates the heartbeat table and publishes it with the other tables. A temporary slot is
 * made by the replication connection, whose role the stream itself checks. With an
 * initial snapshot the slot is left to the snapshot's hand-off, which creates it with the
 * snapshot ({@link InitialSnapshot}), a lost slot under {@code RECREATE} too; a slot that
 * must exist already is refused, as it has a position and no snapshot to hand over from.
 * Without an admin connection it checks nothing and the slot and publication must exist.
 */
final class ConsumerSetup {

	private static final Logger logger = LoggerFactory.getLogger(ConsumerSetup.class);

	private static final int BINARY_VERSION = 140000;

	private static final int MESSAGES_VERSION = 140000;

	private static final int STREAMING_VERSION = 140000;

	private final ConsumerConfig config;

	private final @Nullable AdminConnections admin;

	ConsumerSetup(ConsumerConfig config) {
		this.config = config;
		this.admin = config.admin();
	}

	Result run() {
		if (this.admin == null) {
			logger.info("Consumer of slot {} has no admin connection: slot and publication {} must exist",
					this.config.slotName(), this.config.publicationName());
			// No server version to go by: heartbeats are rows of the table when one is
			// named, else messages.
			WalSafety safety = this.config.walSafety();
			TableId heartbeatTable = safety.heartbeatTable();
			boolean heartbeatMessages = safety.heartbeatMonitor() != null && heartbeatTable == null;
			return new Result(this.config.binary(), this.config.wantsMessages() || heartbeatMessages, heartbeatTable);
		}
		return this.admin.apply("Setting up slot " + this.config.slotName(), this::setUp);
	}

	private Result setUp(Connection connection) throws SQLException {
		ReplicationAdmin admin = new ReplicationAdmin(connection);
		int version = admin.serverVersion();
		if (this.config.wantsMessages() && version < MESSAGES_VERSION) {
			throw new ReplicationConsumerException("A message handler needs PostgreSQL 14 or later to stream "
					+ "logical decoding messages; the server is PostgreSQL " + version(version));
		}
		if (this.config.streaming() != null && version < STREAMING_VERSION) {
			throw new ReplicationConsumerException("Streaming in-progress transactions needs PostgreSQL 14 or later "
					+ "(pgoutput protocol 2); the server is PostgreSQL " + version(version)
					+ ": turn streaming off for this server");
		}
		SlotLifecycle lifecycle = this.config.slotLifecycle();
		WalSafety safety = this.config.walSafety();
		TableId heartbeatTable = heartbeatTable(version);
		boolean tracked = heartbeatTable != null && safety.heartbeatMonitor() != null;
		if (tracked) {
			HeartbeatWriter.ensureTable(connection, heartbeatTable);
		}
		List<TableId> tables = tracked ? published(heartbeatTable) : this.config.tables();
		StartupReport report = new StartupChecks(connection)
			.run(StartupCheckRequest.of(this.config.slotName(), this.config.publicationName())
				.withLifecycle(lifecycle)
				.withPublicationMode(this.config.publicationMode())
				.withTables(tables)
				.withFailover(safety.failover())
				.withHeartbeatTable(tracked ? heartbeatTable : null));
		report.logWarnings(logger);
		report.throwIfFailed();
		LostSlots lostSlots = new LostSlots(this.config);
		SlotLostException lost = lostSlots.atStart(admin);
		SlotInfo existing = (lost == null) ? admin.slot(this.config.slotName()).orElse(null) : null;
		boolean slotExists = existing != null;
		if (lifecycle == SlotLifecycle.EXISTING && !slotExists) {
			throw new SlotNotFoundException(this.config.slotName(), null);
		}
		if (this.config.snapshot() != null && lifecycle == SlotLifecycle.EXISTING) {
			throw SnapshotHandOff.refusedForExistingSlot(this.config.slotName(), existing);
		}
		if (!slotExists && createsSlot(lifecycle) && !admin.hasReplicationPrivilege()) {
			// Refuse before the publication is made: a half set-up would stay behind.
			throw new InsufficientPrivilegeException(currentUser(connection), "create replication slot '"
					+ this.config.slotName() + "' (it needs the REPLICATION attribute or superuser)", null);
		}
		admin.ensurePublication(this.config.publicationName(), this.config.publicationMode(), tables);
		if (this.config.snapshot() == null || slotExists) {
			// A slot that exists is checked (its plugin and database) either way.
			SlotInfo slot = admin.ensureSlot(this.config.slotName(), lifecycle, safety.failover());
			if (lost != null) {
				lostSlots.recreated(lost, lost.lastConfirmedLsn(), slot);
			}
		}
		else if (lost != null) {
			lostSlots.snapshotAgain(lost);
		}
		boolean binary = this.config.binary();
		if (binary && version < BINARY_VERSION) {
			logger.info("PostgreSQL {} cannot stream binary values (needs 14 or later); slot {} streams text",
					version(version), this.config.slotName());
			binary = false;
		}
		boolean heartbeatMessages = safety.heartbeatMonitor() != null && version >= MESSAGES_VERSION;
		return new Result(binary, this.config.wantsMessages() || heartbeatMessages, heartbeatTable);
	}

	/**
	 * Returns the table whose changes are heartbeats: before PostgreSQL 14, when
	 * heartbeats are tracked or a heartbeat table is named (another consumer's heartbeats
	 * may be published to this one too); from 14 they are logical messages.
	 */
	private @Nullable TableId heartbeatTable(int version) {
		WalSafety safety = this.config.walSafety();
		if ((safety.heartbeatMonitor() == null && safety.heartbeatTable() == null) || version >= MESSAGES_VERSION) {
			return null;
		}
		return (safety.heartbeatTable() != null) ? safety.heartbeatTable() : HeartbeatWriter.DEFAULT_TABLE;
	}

	/**
	 * Returns the tables to publish: the configured ones, with the heartbeat table when
	 * it must come back through the stream (every table includes it anyway).
	 */
	private List<TableId> published(@Nullable TableId heartbeatTable) {
		List<TableId> tables = this.config.tables();
		if (heartbeatTable == null || tables.isEmpty() || tables.contains(heartbeatTable)) {
			return tables;
		}
		List<TableId> published = new ArrayList<>(tables);
		published.add(heartbeatTable);
		return List.copyOf(published);
	}

	private static boolean createsSlot(SlotLifecycle lifecycle) {
		return lifecycle == SlotLifecycle.CREATE_IF_MISSING || lifecycle == SlotLifecycle.OWNED;
	}

	private static String currentUser(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT current_user")) {
			return row.next() ? row.getString(1) : "?";
		}
	}

	private static String version(int versionNum) {
		return (versionNum / 10000) + "." + (versionNum % 10000);
	}

	/**
	 * Drops an owned slot after its stream closed; the walsender may take a moment to let
	 * go of it.
	 * @param admin the admin connections
	 * @param slotName the slot
	 * @param timeout how long to keep trying while the slot is still in use
	 */
	static void dropOwnedSlot(AdminConnections admin, String slotName, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			try {
				admin.apply("Dropping slot " + slotName,
						(connection) -> new ReplicationAdmin(connection).dropSlot(slotName));
				return;
			}
			catch (PostlogException ex) {
				if (!(ex instanceof SlotInUseException) || System.nanoTime() - deadline > 0) {
					logger.warn("Could not drop owned slot {}: {}", slotName, ex.getMessage());
					return;
				}
				sleep();
			}
		}
	}

	private static void sleep() {
		try {
			Thread.sleep(50);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * The outcome of set-up.
	 *
	 * @param binary whether to stream binary values
	 * @param messages whether to ask for logical decoding messages: for a message
	 * subscription, or for heartbeats on PostgreSQL 14+
	 * @param heartbeatTable the table whose changes are heartbeats, or {@code null}
	 */
	record Result(boolean binary, boolean messages, @Nullable TableId heartbeatTable) {

	}

}
