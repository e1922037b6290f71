package io.postlog.spring.boot.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import javax.sql.DataSource;

import io.postlog.PostlogException;
import io.postlog.TableId;
import io.postlog.admin.InsufficientPrivilegeException;
import io.postlog.admin.LostSlotAction;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.ServerVersionException;
import io.postlog.admin.SlotInfo;
import io.postlog.admin.SlotLifecycle;
import io.postlog.admin.SlotLoss;
import io.postlog.admin.SlotLostException;
import io.postlog.decoder.LogicalDecoder;
import io.postlog.decoder.TableSelection;
import io.postlog.heartbeat.HeartbeatWriter;
import io.postlog.spring.PostlogSlotLostEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.ApplicationEventPublisher;

/**
 * What the Spring side does on the admin connection before the consumer sets up its slot
 * and publication: acts on a lost slot ({@code postlog.slot.on-lost}), creates the
 * heartbeat table before PostgreSQL 14 and adds it to the published tables, and creates a
 * missing slot with failover ({@code postlog.slot.failover}, publication first), for each
 * consumer group's slot (the heartbeat table for the default group only). Each of these
 * belongs in the consumer's own set-up once it offers them; until then they run here, on
 * the thread that starts the application, so a fault fails start-up.
 */
final class SlotPreparation {

	private static final Logger logger = LoggerFactory.getLogger(SlotPreparation.class);

	private final PostlogProperties properties;

	private final DataSource dataSource;

	private final ApplicationEventPublisher publisher;

	SlotPreparation(PostlogProperties properties, DataSource dataSource, ApplicationEventPublisher publisher) {
		this.properties = properties;
		this.dataSource = dataSource;
		this.publisher = publisher;
	}

	/**
	 * Prepares a group's slot.
	 * @param slotName the group's slot
	 * @param publicationName the group's publication
	 * @param heartbeats whether the group carries the heartbeats (the default group)
	 * @param tables the tables to publish, empty for every table
	 * @param decoders the group's decoder for the tables to publish
	 * @return the tables to publish, with the heartbeat table where it is needed
	 */
	List<TableId> prepare(String slotName, String publicationName, boolean heartbeats, List<TableId> tables,
			Function<List<TableId>, LogicalDecoder> decoders) {
		try (Connection connection = this.dataSource.getConnection()) {
			ReplicationAdmin admin = new ReplicationAdmin(connection);
			actOnLostSlot(admin, slotName);
			List<TableId> published = heartbeats ? withHeartbeatTable(connection, admin, slotName, tables) : tables;
			if (this.properties.getSlot().isFailover()) {
				createFailoverSlot(admin, slotName, publicationName, published, decoders.apply(published));
			}
			return published;
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not prepare replication slot '" + slotName + "'", ex);
		}
	}

	private void actOnLostSlot(ReplicationAdmin admin, String slotName) {
		Optional<SlotLostException> found = SlotLoss.check(admin, slotName, false, null);
		if (found.isEmpty()) {
			return;
		}
		SlotLostException loss = found.get();
		LostSlotAction action = this.properties.getSlot().getOnLost();
		SlotLifecycle lifecycle = this.properties.getSlot().getLifecycle();
		if (action == LostSlotAction.RECREATE && lifecycle == SlotLifecycle.EXISTING) {
			logger.error("postlog.slot.on-lost=recreate needs a lifecycle under which postlog creates slots, "
					+ "but postlog.slot.lifecycle is existing; failing instead");
			action = LostSlotAction.FAIL;
		}
		this.publisher.publishEvent(new PostlogSlotLostEvent(this, loss, action));
		if (action == LostSlotAction.FAIL) {
			throw loss;
		}
		logger.error(
				"{}. postlog.slot.on-lost=recreate: dropping it and creating a new slot; the changes after {} "
						+ "up to the new slot's start are SKIPPED and will never be delivered",
				loss.getMessage(), loss.lastConfirmedLsn());
		admin.dropSlot(slotName);
	}

	private List<TableId> withHeartbeatTable(Connection connection, ReplicationAdmin admin, String slotName,
			List<TableId> tables) {
		PostlogProperties.Heartbeat heartbeat = this.properties.getHeartbeat();
		if (heartbeat.getInterval() == null || !HeartbeatWriter.usesTable(admin.serverVersion())) {
			return tables;
		}
		TableId table = TableId.parse(heartbeat.getTable());
		new HeartbeatWriter(slotName, "setup", table).ensureTable(connection);
		if (tables.isEmpty() || tables.contains(table)) {
			return tables;
		}
		List<TableId> published = new ArrayList<>(tables);
		published.add(table);
		return List.copyOf(published);
	}

	private void createFailoverSlot(ReplicationAdmin admin, String slotName, String publicationName,
			List<TableId> tables, LogicalDecoder decoder) {
		int version = admin.serverVersion();
		if (version < 170000) {
			throw new ServerVersionException("Failover slots", 170000, version);
		}
		SlotLifecycle lifecycle = this.properties.getSlot().getLifecycle();
		Optional<SlotInfo> slot = admin.slot(slotName);
		boolean creates = lifecycle == SlotLifecycle.CREATE_IF_MISSING || lifecycle == SlotLifecycle.OWNED;
		if (slot.isEmpty() && creates) {
			if (!admin.hasReplicationPrivilege()) {
				throw new InsufficientPrivilegeException(admin.currentUser(),
						"create replication slot '" + slotName + "' (it needs the REPLICATION attribute or superuser)",
						null);
			}
			if (decoder.tableSelection() instanceof TableSelection.Publications) {
				// A slot decodes with the publication as of each change: publication
				// first.
				admin.ensurePublication(publicationName, this.properties.getPublication().getMode(), tables);
			}
		}
		admin.ensureSlot(slotName, lifecycle, decoder.plugin(), true);
	}

}
