package io.postlog.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import javax.sql.DataSource;

import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.consumer.ConsumerState;
import io.postlog.consumer.ReplicationConsumer;
import org.apache.kafka.clients.admin.Admin;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Relays a slot's changes, and outbox events, to Kafka exactly once for
 * {@code read_committed} consumers. It runs a {@link ReplicationConsumer} of its own
 * whose transactional checkpoint store is a transactional Kafka producer: the records of
 * one or more source transactions and the last relayed commit LSN (a record of the
 * offsets topic, keyed by slot) commit in one Kafka transaction; on every session start
 * the relay reads that position back and skips what is at or below it; the slot is
 * acknowledged only after the Kafka commit. Records are keyed by replica-identity key, so
 * Kafka's partitioner keeps each row's changes in order. A failed Kafka write rolls the
 * Kafka transaction back and delivers everything after the relayed position again,
 * through the consumer's retry policy; a fenced producer (another relay took over) waits
 * in {@code STANDBY}.
 * <p>
 * The relay reports {@code RUNNING} only once records can flow: its producers are
 * initialised and its position read. Initialising them and committing wait at most the
 * {@linkplain KafkaRelayBuilder#initTimeout(Duration) init timeout}; a relay whose
 * transaction coordinator does not answer within it is {@code RETRYING}, with a
 * {@link KafkaCoordinatorUnavailableException} naming the cause as its
 * {@link #lastFailure()}, and retries without a limit.
 * <p>
 * {@link #start()}, {@link #stop()} and the getters may be called from any thread.
 */
public final class KafkaRelay {

	private static final Logger logger = LoggerFactory.getLogger(KafkaRelay.class);

	private final ReplicationConsumer consumer;

	private final KafkaCheckpointStore store;

	private final OffsetsTopic offsets;

	private final Map<String, Object> adminProperties;

	private final RelayProgress progress;

	private final String slotName;

	private final @Nullable TableId outboxTable;

	private final @Nullable DataSource dataSource;

	private final RelayListeners listeners;

	KafkaRelay(KafkaRelayBuilder builder, RelayClientProperties clients, RelayProgress progress) {
		this.progress = progress;
		this.slotName = builder.slotName;
		this.outboxTable = builder.outboxTable;
		this.dataSource = builder.dataSource;
		this.adminProperties = clients.admin();
		this.offsets = new OffsetsTopic(builder.offsetsTopic, builder.slotName, clients::newConsumer,
				builder.kafkaTimeout);
		ReplicaIdentityKeys keys = new ReplicaIdentityKeys(Objects.requireNonNull(builder.dataSource, "dataSource"));
		DatabaseName database = new DatabaseName(builder.dataSource);
		SchemaRecords schemas = (builder.schemaTopic != null) ? new SchemaRecords(builder.schemaTopic, builder.slotName,
				SchemaFormatter.of(builder.format, builder.cloudEventsMode, builder.slotName, database)) : null;
		this.store = new KafkaCheckpointStore(builder.slotName, builder.transactionalId, clients::newProducer,
				this.offsets, progress, () -> {
					keys.clear();
					if (schemas != null) {
						schemas.session();
					}
				}, new CoordinatorDiagnosis(this.adminProperties, builder.initTimeout), builder.initTimeout);
		Set<String> ownTopics = Set.of(builder.offsetsTopic);
		ChangeFormatter format = ChangeFormatter.of(builder.format, builder.cloudEventsMode, builder.slotName,
				database);
		ChangeRecords changes = new ChangeRecords(new TopicNames(builder.topic, ownTopics), keys, format);
		OutboxRecords outbox = new OutboxRecords(builder.outboxTopic, builder.slotName, ownTopics);
		Set<TableId> relayed = Set.copyOf(builder.tables);
		TableId outboxTable = builder.outboxTable;
		List<TableId> published = new ArrayList<>(builder.tables);
		if (outboxTable != null) {
			published.add(outboxTable);
		}
		KafkaCheckpointStore store = this.store;
		this.listeners = new RelayListeners(store, builder.listeners);
		ReplicationConsumer.Builder consumer = Objects.requireNonNull(builder.consumer, "consumer");
		consumer.slotName(builder.slotName)
			.publicationName(builder.publicationName)
			.tables(published)
			.filters(builder.filters)
			.checkpointStore(store)
			.checkpointBatch(builder.batchTransactions, builder.batchDelay)
			.listener(this.listeners);
		RelayRouting.subscribe(consumer, store, changes, outbox, relayed, outboxTable, builder.outboxMessagePrefix,
				schemas);
		this.consumer = consumer.build();
	}

	/**
	 * Returns a builder.
	 * @return a new builder
	 */
	public static KafkaRelayBuilder builder() {
		return new KafkaRelayBuilder();
	}

	/**
	 * Creates the offsets topic if missing, checks the outbox table, sets up the slot and
	 * publication and starts relaying in the background.
	 * @throws io.postlog.PostlogException if set-up fails
	 */
	public void start() {
		try (Admin admin = Admin.create(this.adminProperties)) {
			this.offsets.ensure(admin);
		}
		if (this.outboxTable != null && this.dataSource != null) {
			OutboxTableCheck.require(this.dataSource, this.outboxTable);
		}
		this.consumer.start();
		logger.info("Kafka relay of slot {} started", this.slotName);
	}

	/**
	 * Stops relaying: the open Kafka transaction is committed when its source transaction
	 * finished, the slot is acknowledged up to what Kafka committed, and the producer is
	 * closed. Idempotent.
	 */
	public void stop() {
		this.consumer.stop();
		this.store.close();
	}

	/**
	 * Returns the relay's state: its consumer's, except that a consumer whose stream is
	 * open while the relay's producers are not yet ready (initialising transactions,
	 * reading the relayed position) is {@code STARTING} on the relay's first session and
	 * {@code RETRYING} after a failure, not {@code RUNNING}: nothing is relayed until the
	 * producers are ready.
	 * @return the state
	 */
	public ConsumerState state() {
		ConsumerState state = this.consumer.state();
		if (state != ConsumerState.RUNNING || this.store.ready()) {
			return state;
		}
		return (this.listeners.lastFailure() != null) ? ConsumerState.RETRYING : ConsumerState.STARTING;
	}

	/**
	 * Returns the position acknowledged to the server.
	 * @return the position
	 */
	public Lsn ackedLsn() {
		return this.consumer.ackedLsn();
	}

	/**
	 * Returns what the relay committed to Kafka.
	 * @return the progress, live
	 */
	public RelayProgress progress() {
		return this.progress;
	}

	/**
	 * Returns the slot the relay reads.
	 * @return the slot name
	 */
	public String slotName() {
		return this.slotName;
	}

	/**
	 * Returns the relay's latest failure: what made it retry or fail.
	 * @return the failure, or {@code null} when there was none
	 */
	public @Nullable Throwable lastFailure() {
		return this.listeners.lastFailure();
	}

	/**
	 * Returns the compacted topic holding the relayed position.
	 * @return the topic's name
	 */
	public String offsetsTopic() {
		return this.offsets.name();
	}

}
