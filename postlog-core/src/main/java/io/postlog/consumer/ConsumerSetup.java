package io.postlog.consumer;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

import io.postlog.PostlogException;
import io.postlog.TableId;
import io.postlog.admin.InsufficientPrivilegeException;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotInUseException;
import io.postlog.admin.SlotInfo;
import io.postlog.admin.SlotLifecycle;
import io.postlog.admin.SlotNotFoundException;
import io.postlog.admin.WalLevelException;
import io.postlog.snapshot.SnapshotHandOff;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link ReplicationConsumer#start()} does before streaming: checks the server
 * (wal_level, the version's capabilities), the slot under {@code EXISTING} and, when it
 * is to create the slot, the role's {@code REPLICATION} privilege before any set-up SQL
 * runs, then makes sure the publication and the slot exist, in that order. A temporary
 * slot is made by the replication connection, whose role the stream itself checks. With
 * an initial snapshot the slot is left to the snapshot's hand-off, which creates it with
 * the snapshot ({@link InitialSnapshot}); a slot that must exist already is refused, as
 * it has a position and no snapshot to hand over from. Without an admin connection it
 * checks nothing and the slot and publication must exist.
 */
final class ConsumerSetup {

	private static final Logger logger = LoggerFactory.getLogger(ConsumerSetup.class);

	private static final int BINARY_VERSION = 140000;

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
			return new Result(this.config.binary(), 0, List.of());
		}
		return this.admin.apply("Setting up slot " + this.config.slotName(), this::setUp);
	}

	private Result setUp(Connection connection) throws SQLException {
		ReplicationAdmin admin = new ReplicationAdmin(connection);
		int version = admin.serverVersion();
		String walLevel = admin.walLevel();
		if (!"logical".equals(walLevel)) {
			throw new WalLevelException(version, walLevel);
		}
		if (this.config.wantsMessages() && version < BINARY_VERSION) {
			throw new ReplicationConsumerException("A message handler needs PostgreSQL 14 or later to stream "
					+ "logical decoding messages; the server is PostgreSQL " + version(version));
		}
		if (this.config.streaming() != null && version < STREAMING_VERSION) {
			throw new ReplicationConsumerException("Streaming in-progress transactions needs PostgreSQL 14 or later "
					+ "(pgoutput protocol 2); the server is PostgreSQL " + version(version)
					+ ": turn streaming off for this server");
		}
		SlotLifecycle lifecycle = this.config.slotLifecycle();
		Optional<SlotInfo> slot = admin.slot(this.config.slotName());
		boolean slotExists = slot.isPresent();
		if (lifecycle == SlotLifecycle.EXISTING && !slotExists) {
			throw new SlotNotFoundException(this.config.slotName(), null);
		}
		if (this.config.snapshot() != null && lifecycle == SlotLifecycle.EXISTING) {
			throw SnapshotHandOff.refusedForExistingSlot(this.config.slotName(), slot.get());
		}
		if (!slotExists && createsSlot(lifecycle) && !admin.hasReplicationPrivilege()) {
			// Refuse before the publication is made: a half set-up would stay behind.
			throw new InsufficientPrivilegeException(currentUser(connection), "create replication slot '"
					+ this.config.slotName() + "' (it needs the REPLICATION attribute or superuser)", null);
		}
		List<TableId> added = tablesToAdd(admin);
		admin.ensurePublication(this.config.publicationName(), this.config.publicationMode(), this.config.tables());
		if (this.config.snapshot() == null || slotExists) {
			// A slot that exists is checked (its plugin and database) either way.
			admin.ensureSlot(this.config.slotName(), lifecycle);
		}
		boolean binary = this.config.binary();
		if (binary && version < BINARY_VERSION) {
			logger.info("PostgreSQL {} cannot stream binary values (needs 14 or later); slot {} streams text",
					version(version), this.config.slotName());
			binary = false;
		}
		// A slot created now with an initial snapshot reads the added tables with the
		// rest.
		boolean snapshotNow = this.config.snapshot() != null && !slotExists;
		return new Result(binary, version, snapshotNow ? List.of() : added);
	}

	/**
	 * Returns the tables a {@code SYNC} publication that exists is about to get added.
	 */
	private List<TableId> tablesToAdd(ReplicationAdmin admin) {
		if (this.config.publicationMode() != PublicationMode.SYNC || this.config.tables().isEmpty()
				|| !admin.publicationExists(this.config.publicationName())) {
			return List.of();
		}
		List<TableId> missing = new ArrayList<>(new LinkedHashSet<>(this.config.tables()));
		missing.removeAll(admin.publicationTables(this.config.publicationName()));
		return missing;
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
	 * @param serverVersion the server's {@code server_version_num}, 0 when not known
	 * @param addedTables the tables publication mode {@code SYNC} added to the
	 * publication, but when an initial snapshot is taken now (which reads them with the
	 * rest): what a backfill of new tables reads
	 */
	record Result(boolean binary, int serverVersion, List<TableId> addedTables) {

	}

}
