package io.postlog.consumer;

import java.time.Duration;

import io.postlog.TableId;
import io.postlog.admin.PgIdentifiers;
import io.postlog.admin.SlotLifecycle;

/**
 * Checks a {@link ReplicationConsumer.Builder}'s configuration, naming the setting at
 * fault, before anything touches the server. Names follow {@link PgIdentifiers}: slot
 * names PostgreSQL's rule, other names anything but NUL within 63 bytes, always quoted.
 */
final class BuilderCheck {

	private final ReplicationConsumer.Builder builder;

	BuilderCheck(ReplicationConsumer.Builder builder) {
		this.builder = builder;
	}

	void check() {
		ReplicationConsumer.Builder b = this.builder;
		if (b.connectionSources() != 1) {
			throw new ReplicationConsumerException(
					"Configure exactly one of jdbcUrl, connectionFactory and streamFactory, not "
							+ b.connectionSources());
		}
		require(b.slotName != null, "slotName");
		PgIdentifiers.requireSlotName(b.slotName);
		require(b.publicationName != null, "publicationName");
		PgIdentifiers.requireName("publication", b.publicationName);
		require(b.slotLifecycle != null, "slotLifecycle");
		require(b.publicationMode != null, "publicationMode");
		require(b.tables != null, "tables");
		for (TableId table : b.tables) {
			PgIdentifiers.requireName("schema", table.schema());
			PgIdentifiers.requireName("table", table.name());
		}
		if (b.changeHandler == null && b.transactionHandler == null && b.messageHandler == null) {
			throw new ReplicationConsumerException(
					"Configure at least one of changeHandler, transactionHandler and messageHandler");
		}
		if (!b.willHaveAdmin() && b.slotLifecycle == SlotLifecycle.OWNED) {
			throw new ReplicationConsumerException("An OWNED slot is dropped on stop, which needs an admin "
					+ "connection: set adminConnection, adminDataSource or jdbcUrl");
		}
		require(b.retryPolicy != null, "retryPolicy");
		positive(b.statusInterval, "statusInterval");
		require(b.stopTimeout != null && !b.stopTimeout.isNegative(), "stopTimeout (not negative)");
		require(b.maxTransactionChanges > 0, "maxTransactionChanges (at least 1)");
		require(b.queueCapacity > 0, "queueCapacity (at least 1)");
		require(b.listener != null, "listener");
		require(b.valueDecoders != null, "valueDecoders");
	}

	private static void positive(Duration duration, String name) {
		require(duration != null && !duration.isNegative() && !duration.isZero(), name + " (positive)");
	}

	private static void require(boolean valid, String setting) {
		if (!valid) {
			throw new ReplicationConsumerException("Invalid consumer configuration: " + setting);
		}
	}

}
