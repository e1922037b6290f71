package io.postlog.consumer;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

import io.postlog.PostlogException;
import io.postlog.TableId;
import io.postlog.admin.InsufficientPrivilegeException;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotInUseException;
import io.postlog.admin.SlotInfo;
import io.postlog.admin.SlotLifecycle;
import io.postlog.admin.SlotLostException;
import io.postlog.admin.SlotNotFoundException;
import io.postlog.admin.StartupCheckRequest;
import io.postlog.admin.StartupChecks;
import io.postlog.admin.StartupReport;
import io.postlog.admin.UnsendableColumn;
import io.postlog.schema.DdlEvents;
import io.postlog.decoder.DecoderCatalog;
import io.postlog.decoder.DecoderRefusedException;
import io.postlog.decoder.DecoderRequest;
import io.postlog.decoder.LogicalDecoder;
import io.postlog.decoder.TableSelection;
import io.postlog.heartbeat.HeartbeatWriter;
import io.postlog.snapshot.SnapshotHandOff;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@link ReplicationConsumer#start()} does before streaming: lets the decoder check
 * what it is asked for on this server and these tables ({@link LogicalDecoder#check},
 * which refuses what its plugin cannot carry), runs the start-up checks
 * ({@link StartupChecks}: failures thrown typed, warnings logged once with their fix; the
 * publication's only for a decoder reading publications), acts on a lost slot
 * ({@link LostSlots}), checks the slot under {@code EXISTING} and, when it is to create
 * the slot, the role's {@code REPLICATION} privilege before any set-up SQL runs, then
 * makes sure the publication (for a decoder reading publications) and the slot of the
 * decoder's plugin (with failover when asked) exist, in that order, and lets the decoder
 * check the slot's plugin. Binary values are off where the decoder or the server cannot
 * carry them, or where a published column's type cannot be sent in binary; each is said
 * once. Before PostgreSQL 14, with heartbeats tracked, it first creates the heartbeat
 * table and publishes it with the other tables. A temporary slot is made by the
 * replication connection, whose role the stream itself checks. Without an admin
 * connection it checks nothing and the slot and publication must exist.
 */
final class ConsumerSetup {

	private static final Logger logger = LoggerFactory.getLogger(ConsumerSetup.class);

	/** The server version when there is no admin connection to ask. */
	static final int UNKNOWN_VERSION = 0;

	private static final int MESSAGES_VERSION = 140000;

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
			return new Result(UNKNOWN_VERSION, requested(heartbeatMessages), heartbeatTable, List.of());
		}
		return this.admin.apply("Setting up slot " + this.config.slotName(), this::setUp);
	}

	/**
	 * What the configuration asks for, binary by default where the decoder carries it.
	 */
	private DecoderRequest requested(boolean heartbeatMessages) {
		Boolean binary = this.config.binary();
		boolean carries = this.config.decoder().capabilities().binary();
		if (binary == null && !carries) {
			logger.info("Decoder {} sends text values; slot {} streams text", this.config.decoder().name(),
					this.config.slotName());
		}
		return new DecoderRequest((binary != null) ? binary : carries, this.config.wantsMessages() || heartbeatMessages,
				this.config.streaming() != null);
	}

	private Result setUp(Connection connection) throws SQLException {
		ReplicationAdmin admin = new ReplicationAdmin(connection);
		int version = admin.serverVersion();
		// Refused before any set-up SQL: filters are never applied on the client.
		admin.requireFilters(this.config.filters());
		LogicalDecoder decoder = this.config.decoder();
		boolean publications = decoder.tableSelection() instanceof TableSelection.Publications;
		WalSafety safety = this.config.walSafety();
		boolean heartbeatMessages = safety.heartbeatMonitor() != null && version >= MESSAGES_VERSION;
		if (heartbeatMessages && !decoder.capabilities().messages()) {
			throw new DecoderRefusedException(decoder.name(),
					"heartbeats come back as logical decoding messages " + "from PostgreSQL 14 on, which "
							+ decoder.plugin() + " does not send; turn heartbeat "
							+ "tracking off, or use decoder pgoutput or wal2json");
		}
		// Backfill watermarks are logical messages from 14 on too.
		boolean watermarkMessages = this.config.backfill() != null && version >= MESSAGES_VERSION
				&& decoder.capabilities().messages();
		if (this.config.ddlEvents()) {
			DdlEvents.install(connection);
		}
		DecoderRequest requested = requested(heartbeatMessages || watermarkMessages || this.config.ddlEvents());
		DecoderRequest request = decoder.check(version, requested, DecoderCatalog.borrowing(connection));
		if (requested.binary() && !request.binary()) {
			logger.info("PostgreSQL {} cannot stream binary values (needs 14 or later); slot {} streams text",
					version(version), this.config.slotName());
		}
		SlotLifecycle lifecycle = this.config.slotLifecycle();
		TableId heartbeatTable = heartbeatTable(version);
		boolean tracked = heartbeatTable != null && safety.heartbeatMonitor() != null;
		if (tracked) {
			HeartbeatWriter.ensureTable(connection, heartbeatTable);
			if (!publications) {
				warnUnlessStreamed(connection, decoder, heartbeatTable);
			}
		}
		List<TableId> tables = tracked ? published(heartbeatTable) : this.config.tables();
		StartupCheckRequest checks = StartupCheckRequest.of(this.config.slotName(), this.config.publicationName())
			.withLifecycle(lifecycle)
			.withPublicationMode(this.config.publicationMode())
			.withTables(tables)
			.withFailover(safety.failover())
			.withHeartbeatTable(tracked ? heartbeatTable : null);
		StartupReport report = new StartupChecks(connection).run(publications ? checks : checks.withoutPublication());
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
		List<TableId> added = publications ? tablesToAdd(admin) : List.of();
		if (publications) {
			admin.ensurePublication(this.config.publicationName(), this.config.publicationMode(), tables,
					this.config.filters());
			if (request.binary()) {
				request = textIfUnsendable(admin, request, tables);
			}
		}
		if (this.config.snapshot() == null || slotExists) {
			// A slot that exists is checked (its plugin and database) either way.
			SlotInfo slot = admin.ensureSlot(this.config.slotName(), lifecycle, decoder.plugin(), safety.failover());
			if (lost != null) {
				lostSlots.recreated(lost, lost.lastConfirmedLsn(), slot);
			}
			if (!slot.temporary() && !slot.active()) {
				checkSlot(connection, admin, request, !slotExists);
			}
		}
		else if (lost != null) {
			lostSlots.snapshotAgain(lost);
		}
		// A slot created now with an initial snapshot reads the added tables with the
		// rest.
		boolean snapshotNow = this.config.snapshot() != null && !slotExists;
		return new Result(version, request, heartbeatTable, snapshotNow ? List.of() : added);
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

	/**
	 * Lets the decoder ask the plugin on the server; a slot made for a refused decoder is
	 * dropped again, so that it does not hold WAL back.
	 */
	private void checkSlot(Connection connection, ReplicationAdmin admin, DecoderRequest request, boolean created) {
		try {
			this.config.decoder().checkSlot(connection, this.config.slotName(), request);
		}
		catch (DecoderRefusedException ex) {
			if (created) {
				admin.dropSlot(this.config.slotName());
			}
			throw ex;
		}
	}

	/**
	 * Turns binary off when a published column holds a type without a binary send
	 * function ({@code aclitem[]}), which the server would fail on at its first change.
	 */
	private DecoderRequest textIfUnsendable(ReplicationAdmin admin, DecoderRequest request, List<TableId> published) {
		List<TableId> tables = published.isEmpty() ? admin.publicationTables(this.config.publicationName()) : published;
		List<UnsendableColumn> unsendable = admin.typesWithoutBinarySend(tables);
		if (unsendable.isEmpty()) {
			return request;
		}
		logger.warn("The server cannot send {} in binary; slot {} streams text values", unsendable,
				this.config.slotName());
		return request.withoutBinary();
	}

	/**
	 * Warns when the heartbeat table is not among the tables a plugin other than pgoutput
	 * streams: postlog cannot add it to a wal2json table list or a pglogical replication
	 * set the application chose.
	 */
	private void warnUnlessStreamed(Connection connection, LogicalDecoder decoder, TableId heartbeatTable) {
		TableSelection selection = decoder.tableSelection();
		List<TableId> streamed = (selection instanceof TableSelection.ReplicationSets sets)
				? DecoderCatalog.borrowing(connection).replicationSetTables(sets.names())
				: ((TableSelection.Tables) selection).tables();
		if (!streamed.contains(heartbeatTable)) {
			logger.warn(
					"Heartbeat table {} is not among the tables decoder {} streams: before PostgreSQL 14 the "
							+ "heartbeat is an update of it, and it never comes back through slot {}. Add it to {}",
					heartbeatTable, decoder.name(), this.config.slotName(),
					(selection instanceof TableSelection.ReplicationSets) ? "a replication set"
							: "the decoder's tables");
		}
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
	 * @param serverVersion the server's {@code server_version_num}, or
	 * {@link #UNKNOWN_VERSION} without an admin connection
	 * @param request what the decoder streams with (binary values, logical decoding
	 * messages for a message subscription or for heartbeats on PostgreSQL 14+), checked
	 * where there was an admin connection
	 * @param heartbeatTable the table whose changes are heartbeats, or {@code null}
	 * @param addedTables the tables publication mode {@code SYNC} added to the
	 * publication, but when an initial snapshot is taken now (which reads them with the
	 * rest): what a backfill of new tables reads
	 */
	record Result(int serverVersion, DecoderRequest request, @Nullable TableId heartbeatTable,
			List<TableId> addedTables) {

	}

}
