package io.postlog.admin;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import io.postlog.TableId;
import org.jspecify.annotations.Nullable;

/**
 * What {@link StartupChecks} checks the server for: the slot and publication postlog is
 * about to use and how it will set them up. Immutable; the {@code with} methods return
 * copies.
 *
 * @param slotName the slot
 * @param lifecycle how the slot is set up (decides whether postlog needs a free slot)
 * @param publicationName the publication
 * @param publicationMode how the publication is set up
 * @param tables the tables postlog publishes; empty for every table
 * @param failover whether the slot is to fail over to standbys
 * @param heartbeatTable the heartbeat table, when heartbeats are on and the server is
 * older than 14; {@code null} otherwise
 * @param decodeTimeout the longest the publication check may decode the slot's retained
 * WAL
 * @param publicationRead whether the slot's plugin reads the publication (pgoutput); for
 * another plugin the publication's checks are left to its decoder
 */
public record StartupCheckRequest(String slotName, SlotLifecycle lifecycle, String publicationName,
		PublicationMode publicationMode, List<TableId> tables, boolean failover, @Nullable TableId heartbeatTable,
		Duration decodeTimeout, boolean publicationRead) {

	/**
	 * Creates a request.
	 * @param slotName the slot
	 * @param lifecycle the slot's lifecycle
	 * @param publicationName the publication
	 * @param publicationMode the publication's mode
	 * @param tables the published tables
	 * @param failover whether the slot fails over
	 * @param heartbeatTable the heartbeat table
	 * @param decodeTimeout the decoding time limit
	 * @param publicationRead whether the plugin reads the publication
	 */
	public StartupCheckRequest {
		PgIdentifiers.requireSlotName(slotName);
		PgIdentifiers.requireName("publication", publicationName);
		Objects.requireNonNull(lifecycle, "lifecycle");
		Objects.requireNonNull(publicationMode, "publicationMode");
		tables = List.copyOf(tables);
		Objects.requireNonNull(decodeTimeout, "decodeTimeout");
	}

	/**
	 * Returns a request for a slot and publication that postlog creates if missing, for
	 * every table, without failover or heartbeat table, decoding for at most 10 seconds.
	 * @param slotName the slot
	 * @param publicationName the publication
	 * @return the request
	 */
	public static StartupCheckRequest of(String slotName, String publicationName) {
		return new StartupCheckRequest(slotName, SlotLifecycle.CREATE_IF_MISSING, publicationName,
				PublicationMode.CREATE_IF_MISSING, List.of(), false, null, Duration.ofSeconds(10), true);
	}

	/**
	 * Returns a copy with another slot lifecycle.
	 * @param lifecycle the lifecycle
	 * @return the copy
	 */
	public StartupCheckRequest withLifecycle(SlotLifecycle lifecycle) {
		return new StartupCheckRequest(this.slotName, lifecycle, this.publicationName, this.publicationMode,
				this.tables, this.failover, this.heartbeatTable, this.decodeTimeout, this.publicationRead);
	}

	/**
	 * Returns a copy with another publication mode.
	 * @param publicationMode the mode
	 * @return the copy
	 */
	public StartupCheckRequest withPublicationMode(PublicationMode publicationMode) {
		return new StartupCheckRequest(this.slotName, this.lifecycle, this.publicationName, publicationMode,
				this.tables, this.failover, this.heartbeatTable, this.decodeTimeout, this.publicationRead);
	}

	/**
	 * Returns a copy with other published tables.
	 * @param tables the tables, empty for every table
	 * @return the copy
	 */
	public StartupCheckRequest withTables(List<TableId> tables) {
		return new StartupCheckRequest(this.slotName, this.lifecycle, this.publicationName, this.publicationMode,
				tables, this.failover, this.heartbeatTable, this.decodeTimeout, this.publicationRead);
	}

	/**
	 * Returns a copy that asks for a failover slot or not.
	 * @param failover whether the slot fails over
	 * @return the copy
	 */
	public StartupCheckRequest withFailover(boolean failover) {
		return new StartupCheckRequest(this.slotName, this.lifecycle, this.publicationName, this.publicationMode,
				this.tables, failover, this.heartbeatTable, this.decodeTimeout, this.publicationRead);
	}

	/**
	 * Returns a copy with a heartbeat table to check.
	 * @param heartbeatTable the table, or {@code null} for none
	 * @return the copy
	 */
	public StartupCheckRequest withHeartbeatTable(@Nullable TableId heartbeatTable) {
		return new StartupCheckRequest(this.slotName, this.lifecycle, this.publicationName, this.publicationMode,
				this.tables, this.failover, heartbeatTable, this.decodeTimeout, this.publicationRead);
	}

	/**
	 * Returns a copy with another decoding time limit.
	 * @param decodeTimeout the limit
	 * @return the copy
	 */
	public StartupCheckRequest withDecodeTimeout(Duration decodeTimeout) {
		return new StartupCheckRequest(this.slotName, this.lifecycle, this.publicationName, this.publicationMode,
				this.tables, this.failover, this.heartbeatTable, decodeTimeout, this.publicationRead);
	}

	/**
	 * Returns a copy for a plugin that does not read the publication (wal2json,
	 * pglogical): the publication's checks (replica identities of its tables, its order
	 * against the slot, the heartbeat table in it) are skipped, the server's kept.
	 * @return the copy
	 */
	public StartupCheckRequest withoutPublication() {
		return new StartupCheckRequest(this.slotName, this.lifecycle, this.publicationName, this.publicationMode,
				this.tables, this.failover, this.heartbeatTable, this.decodeTimeout, false);
	}

}
