package io.postlog.admin;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import io.postlog.TableId;

/**
 * The checks postlog runs on the server before it streams, in one place: each finding is
 * a failure (with the typed exception to throw) or a warning, and says what to do. Every
 * check only reads; none changes the server. Run it after the slot and publication are
 * set up to get every check, or before, to fail early: checks of things that do not exist
 * yet are skipped or judged on what set-up will do (a slot to create needs a free one; a
 * publication to create will publish the requested tables).
 * <p>
 * Usage: {@code new StartupChecks(connection).run(StartupCheckRequest.of("postlog",
 * "postlog")).throwIfFailed()}. The connection is borrowed, never closed; an instance is
 * not thread-safe, like the connection.
 */
public final class StartupChecks {

	private static final int IDLE_TIMEOUT_VERSION = 180000;

	private static final int MESSAGES_VERSION = 140000;

	private final Connection connection;

	private final ReplicationAdmin admin;

	/**
	 * Creates the checks over a connection to the database postlog streams from.
	 * @param connection an ordinary connection, owned by the caller
	 */
	public StartupChecks(Connection connection) {
		this.connection = Objects.requireNonNull(connection, "connection");
		this.admin = new ReplicationAdmin(connection);
	}

	/**
	 * Runs every check.
	 * @param request the slot and publication to check for
	 * @return the findings
	 */
	public StartupReport run(StartupCheckRequest request) {
		ReplicationSettings settings = this.admin.replicationSettings();
		SlotInfo slot = this.admin.slot(request.slotName()).orElse(null);
		boolean publicationExists = this.admin.publicationExists(request.publicationName());
		List<StartupFinding> findings = new ArrayList<>();
		walLevel(settings).ifPresent(findings::add);
		capacity(request, settings, slot, findings);
		walKeepSize(settings).ifPresent(findings::add);
		idleTimeout(settings).ifPresent(findings::add);
		if (slot != null && "logical".equals(settings.walLevel()) && request.publicationRead()) {
			new PublicationOrderCheck(this.connection)
				.run(slot, request.publicationName(), publicationExists, request.decodeTimeout())
				.ifPresent(findings::add);
		}
		if (request.publicationRead()) {
			new ReplicaIdentityCheck(this.admin, this.connection).run(request, publicationExists)
				.ifPresent(findings::add);
		}
		if (request.failover()) {
			failover(settings, slot, findings);
		}
		heartbeatTable(request, settings, publicationExists).ifPresent(findings::add);
		return new StartupReport(findings);
	}

	private static Optional<StartupFinding> walLevel(ReplicationSettings settings) {
		if ("logical".equals(settings.walLevel())) {
			return Optional.empty();
		}
		return Optional.of(StartupFinding.failure(StartupFinding.Check.WAL_LEVEL,
				new WalLevelException(settings.serverVersion(), settings.walLevel()),
				"Set wal_level = logical (ALTER SYSTEM SET wal_level = logical) and restart PostgreSQL"));
	}

	private static void capacity(StartupCheckRequest request, ReplicationSettings settings, SlotInfo slot,
			List<StartupFinding> findings) {
		if (slot == null && request.lifecycle() != SlotLifecycle.EXISTING && settings.freeReplicationSlots() == 0) {
			findings.add(StartupFinding.failure(StartupFinding.Check.REPLICATION_SLOTS,
					new ReplicationCapacityException("max_replication_slots", settings.maxReplicationSlots(),
							settings.usedReplicationSlots()),
					"Drop slots nobody reads (SELECT slot_name, active FROM pg_replication_slots), or raise "
							+ "max_replication_slots (needs a restart)"));
		}
		int freeSenders = settings.freeWalSenders();
		if (freeSenders == 0) {
			findings.add(StartupFinding.failure(StartupFinding.Check.WAL_SENDERS,
					new ReplicationCapacityException("max_wal_senders", settings.maxWalSenders(),
							settings.usedWalSenders()),
					"Raise max_wal_senders (needs a restart), or stop replication connections nobody needs "
							+ "(SELECT pid, application_name FROM pg_stat_replication)"));
		}
		else if (freeSenders == 1) {
			findings.add(StartupFinding.warning(StartupFinding.Check.WAL_SENDERS,
					"Only one WAL sender is free (max_wal_senders is " + settings.maxWalSenders() + ", "
							+ settings.usedWalSenders() + " in use): a reconnect while the old WAL sender is "
							+ "still exiting, or another replica, will be refused",
					"Raise max_wal_senders to leave room for one more connection per postlog application"));
		}
	}

	private static Optional<StartupFinding> walKeepSize(ReplicationSettings settings) {
		if (settings.serverVersion() < SlotQuery.WAL_STATUS_VERSION) {
			return Optional.of(StartupFinding.warning(StartupFinding.Check.MAX_SLOT_WAL_KEEP_SIZE,
					"PostgreSQL " + ReplicationAdmin.versionText(settings.serverVersion())
							+ " cannot bound the WAL a replication slot retains: a stalled slot keeps WAL until the "
							+ "disk is full",
					"Alert on postlog.slot.retained and set postlog.health.max-retained; PostgreSQL 13+ adds "
							+ "max_slot_wal_keep_size"));
		}
		if (settings.maxSlotWalKeepSize() != null) {
			return Optional.empty();
		}
		return Optional.of(StartupFinding.warning(StartupFinding.Check.MAX_SLOT_WAL_KEEP_SIZE,
				"max_slot_wal_keep_size is -1: a replication slot nobody reads retains WAL without limit, until "
						+ "the disk is full",
				"Set max_slot_wal_keep_size to the WAL you can afford on disk (for example 50GB); postlog's "
						+ "health turns DOWN at postlog.health.max-retained-ratio of it, before the server "
						+ "invalidates the slot"));
	}

	private static Optional<StartupFinding> idleTimeout(ReplicationSettings settings) {
		Duration timeout = settings.idleReplicationSlotTimeout();
		if (settings.serverVersion() < IDLE_TIMEOUT_VERSION || timeout == null || timeout.isZero()) {
			return Optional.empty();
		}
		return Optional.of(StartupFinding.warning(StartupFinding.Check.IDLE_REPLICATION_SLOT_TIMEOUT,
				"idle_replication_slot_timeout is " + timeout + ": the server invalidates a slot nobody has read "
						+ "for that long, so a postlog outage longer than it loses the slot",
				"Set idle_replication_slot_timeout = 0, or longer than your longest outage, and set "
						+ "postlog.slot.on-lost deliberately"));
	}

	private static void failover(ReplicationSettings settings, SlotInfo slot, List<StartupFinding> findings) {
		if (settings.serverVersion() < SlotQuery.FAILOVER_VERSION) {
			findings.add(StartupFinding.failure(StartupFinding.Check.FAILOVER,
					new ServerVersionException("Failover slots", SlotQuery.FAILOVER_VERSION, settings.serverVersion()),
					"Turn postlog.slot.failover off, or upgrade to PostgreSQL 17"));
			return;
		}
		if (slot != null && !Boolean.TRUE.equals(slot.failover())) {
			findings.add(StartupFinding.warning(StartupFinding.Check.FAILOVER,
					"Replication slot '" + slot.slotName() + "' exists without failover: standbys keep no copy, "
							+ "so after a promotion it is missing",
					"On a replication connection (psql \"dbname=<db> replication=database\") run "
							+ "ALTER_REPLICATION_SLOT " + slot.slotName() + " (FAILOVER true)"));
		}
		if (!settings.inRecovery() && !settings.waitsForStandbys()) {
			findings.add(StartupFinding.warning(StartupFinding.Check.FAILOVER,
					"synchronized_standby_slots is empty: postlog may receive changes a standby does not have yet, "
							+ "and after a promotion to that standby they are gone",
					"Set synchronized_standby_slots to the standbys' physical slots (and sync_replication_slots = "
							+ "on, hot_standby_feedback = on on the standbys)"));
		}
	}

	private Optional<StartupFinding> heartbeatTable(StartupCheckRequest request, ReplicationSettings settings,
			boolean publicationExists) {
		TableId table = request.heartbeatTable();
		if (table == null || settings.serverVersion() >= MESSAGES_VERSION || !request.publicationRead()) {
			return Optional.empty();
		}
		boolean published;
		if (publicationExists) {
			published = this.admin.publicationTables(request.publicationName()).contains(table)
					|| (request.publicationMode() == PublicationMode.SYNC && request.tables().contains(table));
		}
		else {
			published = request.tables().isEmpty() || request.tables().contains(table);
		}
		if (published) {
			return Optional.empty();
		}
		return Optional.of(StartupFinding.warning(StartupFinding.Check.HEARTBEAT_TABLE,
				"Heartbeat table " + table + " is not in publication '" + request.publicationName()
						+ "': before PostgreSQL 14 the heartbeat is an update of it, and an unpublished one never "
						+ "comes back through the stream",
				"ALTER PUBLICATION " + PgIdentifiers.quote("publication", request.publicationName()) + " ADD TABLE "
						+ PgIdentifiers.quote(table)));
	}

}
