package io.postlog.kafka;

import java.time.Instant;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import io.postlog.Operation;
import io.postlog.TableId;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.consumer.Subscription;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes what the relay's consumer delivers to the store's Kafka transaction: a change of
 * a relayed table as a change record, an insert into the outbox table and a transactional
 * logical message with the outbox prefix as an outbox record. Other changes of the outbox
 * table, and non-transactional messages (logged once), are not relayed.
 */
final class RelayRouting {

	private static final Logger logger = LoggerFactory.getLogger(KafkaRelay.class);

	private RelayRouting() {
	}

	static void subscribe(ReplicationConsumer.Builder consumer, KafkaCheckpointStore store, ChangeRecords changes,
			OutboxRecords outbox, Set<TableId> relayed, @Nullable TableId outboxTable, @Nullable String prefix,
			@Nullable SchemaRecords schemas) {
		Subscription relay = Subscription.onChange("kafka-relay", (change) -> {
			if (change.table().equals(outboxTable)) {
				if (change.operation() == Operation.INSERT) {
					store.send(outbox.record(change), change.commitTime());
				}
			}
			else {
				store.send(changes.record(change), change.commitTime());
			}
		}).withFilter((change) -> relayed.contains(change.table()) || change.table().equals(outboxTable));
		if (schemas != null) {
			// In the same subscription, so in order with the changes and in their Kafka
			// transaction.
			relay = relay.withSchemaHandler((schemaChange) -> {
				if (relayed.contains(schemaChange.table())
						|| (schemaChange.before() != null && relayed.contains(schemaChange.before().table()))) {
					store.send(schemas.record(schemaChange), Instant.now());
				}
			});
		}
		consumer.subscribe(relay);
		if (prefix != null) {
			AtomicBoolean warned = new AtomicBoolean();
			consumer.subscribe(Subscription.onMessage("kafka-outbox-messages", (message) -> {
				if (!message.prefix().equals(prefix)) {
					return;
				}
				if (!message.transactional()) {
					if (warned.compareAndSet(false, true)) {
						logger.warn(
								"Ignoring non-transactional outbox messages with prefix {} (first at {}): only "
										+ "transactional messages commit with their transaction",
								prefix, message.lsn());
					}
					return;
				}
				store.send(outbox.record(message), Instant.now());
			}));
		}
	}

}
