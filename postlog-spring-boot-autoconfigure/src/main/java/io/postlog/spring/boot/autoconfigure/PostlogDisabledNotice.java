package io.postlog.spring.boot.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashSet;
import java.util.Set;

import javax.sql.DataSource;

import io.postlog.Lsn;
import io.postlog.admin.PgIdentifiers;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.util.unit.DataSize;

/**
 * With {@code postlog.enabled=false}, says at start-up when postlog's slots still exist:
 * an unread slot keeps the server from recycling WAL, so a disabled application can fill
 * the primary's disk. Never fails start-up.
 */
final class PostlogDisabledNotice implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(PostlogDisabledNotice.class);

	private final DataSource dataSource;

	private final Set<String> slots;

	PostlogDisabledNotice(DataSource dataSource, PostlogProperties properties) {
		this.dataSource = dataSource;
		Set<String> slots = new LinkedHashSet<>();
		slots.add(properties.slotName(""));
		for (String group : properties.getGroups().keySet()) {
			slots.add(properties.slotName(group));
		}
		this.slots = slots;
	}

	@Override
	public void afterSingletonsInstantiated() {
		try (Connection connection = this.dataSource.getConnection()) {
			ReplicationAdmin admin = new ReplicationAdmin(connection);
			Lsn current = null;
			for (String name : this.slots) {
				SlotInfo slot = admin.slot(name).orElse(null);
				if (slot == null) {
					continue;
				}
				if (current == null) {
					current = admin.currentLsn();
				}
				Lsn restart = slot.restartLsn();
				String retained = (restart != null && restart.isValid())
						? describe(Math.max(0, current.minus(restart))) + " of WAL" : "WAL";
				logger.info(
						"postlog is disabled (postlog.enabled=false), but replication slot {} still exists and "
								+ "retains {}; the server keeps it until the slot is read or dropped. Drop it with "
								+ "SELECT pg_drop_replication_slot('{}') if postlog is gone for good",
						PgIdentifiers.printable(name), retained, PgIdentifiers.printable(name));
			}
		}
		catch (SQLException | RuntimeException ex) {
			logger.debug("postlog is disabled and could not check its replication slots: {}", ex.toString());
		}
	}

	static String describe(long bytes) {
		if (bytes >= DataSize.ofGigabytes(1).toBytes()) {
			return String.format("%.1f GB (%d bytes)", bytes / (double) DataSize.ofGigabytes(1).toBytes(), bytes);
		}
		if (bytes >= DataSize.ofMegabytes(1).toBytes()) {
			return String.format("%.1f MB (%d bytes)", bytes / (double) DataSize.ofMegabytes(1).toBytes(), bytes);
		}
		return bytes + " bytes";
	}

}
