package io.postlog.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import javax.sql.DataSource;

import io.postlog.Lsn;
import io.postlog.ReplicationConsumerException;
import io.postlog.TableId;
import io.postlog.admin.PgIdentifiers;
import io.postlog.consumer.ConsumerListener;
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
 * {@linkplain Builder#initTimeout(Duration) init timeout}; a relay whose transaction
 * coordinator does not answer within it is {@code RETRYING}, with a
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

	private KafkaRelay(Builder builder, RelayClientProperties clients, RelayProgress progress) {
		this.progress = progress;
		this.slotName = builder.slotName;
		this.outboxTable = builder.outboxTable;
		this.dataSource = builder.dataSource;
		this.adminProperties = clients.admin();
		this.offsets = new OffsetsTopic(builder.offsetsTopic, builder.slotName, clients::newConsumer,
				builder.kafkaTimeout);
		ReplicaIdentityKeys keys = new ReplicaIdentityKeys(Objects.requireNonNull(builder.dataSource, "dataSource"));
		this.store = new KafkaCheckpointStore(builder.slotName, builder.transactionalId, clients::newProducer,
				this.offsets, progress, keys::clear,
				new CoordinatorDiagnosis(this.adminProperties, builder.initTimeout), builder.initTimeout);
		Set<String> ownTopics = Set.of(builder.offsetsTopic);
		ChangeFormatter format = ChangeFormatter.of(builder.format, builder.cloudEventsMode, builder.slotName,
				new DatabaseName(Objects.requireNonNull(builder.dataSource, "dataSource")));
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
			.checkpointStore(store)
			.checkpointBatch(builder.batchTransactions, builder.batchDelay)
			.listener(this.listeners);
		RelayRouting.subscribe(consumer, store, changes, outbox, relayed, outboxTable, builder.outboxMessagePrefix,
				(builder.schemaTopic != null) ? new SchemaRecords(builder.schemaTopic) : null);
		this.consumer = consumer.build();
	}

	/**
	 * Returns a builder.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
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

	/**
	 * Configures a {@link KafkaRelay}. Not thread-safe.
	 */
	public static final class Builder {

		private ReplicationConsumer.@Nullable Builder consumer;

		private @Nullable DataSource dataSource;

		private String slotName = "postlog_kafka";

		private String publicationName = "postlog_kafka";

		private List<TableId> tables = List.of();

		private String topic = "{schema}.{table}";

		private String offsetsTopic = "postlog.offsets";

		private RelayFormat format = RelayFormat.POSTLOG;

		private CloudEventsMode cloudEventsMode = CloudEventsMode.BINARY;

		private @Nullable String transactionalIdValue;

		private String transactionalId = "";

		private @Nullable TableId outboxTable;

		private String outboxTopic = "{aggregatetype}";

		private @Nullable String outboxMessagePrefix;

		private @Nullable String schemaTopic;

		private int batchTransactions = 100;

		private Duration batchDelay = Duration.ofMillis(500);

		private Duration transactionTimeout = Duration.ofMinutes(5);

		private Duration kafkaTimeout = Duration.ofSeconds(30);

		private Duration initTimeout = Duration.ofSeconds(30);

		private Map<String, Object> kafka = Map.of();

		private Map<String, Object> producer = Map.of();

		private Map<String, Object> consumerProperties = Map.of();

		private Map<String, Object> admin = Map.of();

		private final List<ConsumerListener> listeners = new ArrayList<>();

		private RelayProgress.@Nullable Listener commitListener;

		private Builder() {
		}

		/**
		 * Sets the replication consumer builder, configured with its connections, retry
		 * policy and timing; the relay sets its slot, publication, tables, subscriptions,
		 * checkpoint store and listener.
		 * @param consumer the builder
		 * @return this builder
		 */
		public Builder consumer(ReplicationConsumer.Builder consumer) {
			this.consumer = consumer;
			return this;
		}

		/**
		 * Sets the data source for catalog look-ups (replica-identity keys, the outbox
		 * table's columns).
		 * @param dataSource the data source
		 * @return this builder
		 */
		public Builder dataSource(DataSource dataSource) {
			this.dataSource = dataSource;
			return this;
		}

		/**
		 * Sets the relay's slot ({@code postlog_kafka} by default).
		 * @param slotName the slot name
		 * @return this builder
		 */
		public Builder slotName(String slotName) {
			this.slotName = slotName;
			return this;
		}

		/**
		 * Sets the relay's publication ({@code postlog_kafka} by default).
		 * @param publicationName the publication name
		 * @return this builder
		 */
		public Builder publicationName(String publicationName) {
			this.publicationName = publicationName;
			return this;
		}

		/**
		 * Sets the tables whose changes are relayed.
		 * @param tables the tables
		 * @return this builder
		 */
		public Builder tables(List<TableId> tables) {
			this.tables = List.copyOf(tables);
			return this;
		}

		/**
		 * Sets the topic pattern, with {@code {schema}} and {@code {table}}
		 * ({@code {schema}.{table}} by default).
		 * @param topic the pattern
		 * @return this builder
		 */
		public Builder topic(String topic) {
			this.topic = topic;
			return this;
		}

		/**
		 * Sets the form of change records ({@link RelayFormat#POSTLOG} by default).
		 * @param format the form
		 * @return this builder
		 */
		public Builder format(RelayFormat format) {
			this.format = Objects.requireNonNull(format, "format");
			return this;
		}

		/**
		 * Sets how CloudEvents are carried when the format is
		 * {@link RelayFormat#CLOUDEVENTS} ({@link CloudEventsMode#BINARY} by default).
		 * @param mode the mode
		 * @return this builder
		 */
		public Builder cloudEventsMode(CloudEventsMode mode) {
			this.cloudEventsMode = Objects.requireNonNull(mode, "mode");
			return this;
		}

		/**
		 * Sets the compacted topic holding each slot's relayed position
		 * ({@code postlog.offsets} by default; created with one partition if missing).
		 * @param offsetsTopic the topic
		 * @return this builder
		 */
		public Builder offsetsTopic(String offsetsTopic) {
			this.offsetsTopic = offsetsTopic;
			return this;
		}

		/**
		 * Sets the producer's transactional id ({@code postlog-} and the slot name by
		 * default); every relay needs its own, the same across its restarts.
		 * @param transactionalId the id
		 * @return this builder
		 */
		public Builder transactionalId(String transactionalId) {
			this.transactionalIdValue = transactionalId;
			return this;
		}

		/**
		 * Sets the outbox table, whose inserted rows are relayed as messages.
		 * @param outboxTable the table, or {@code null} for none
		 * @return this builder
		 */
		public Builder outboxTable(@Nullable TableId outboxTable) {
			this.outboxTable = outboxTable;
			return this;
		}

		/**
		 * Sets the topic the schema changes of the relayed tables go to, in the Kafka
		 * transaction of the source transaction they came in and before its first change
		 * in the new shape, keyed by table ({@code null}, the default: not relayed).
		 * @param schemaTopic the topic, or {@code null}
		 * @return this builder
		 */
		public Builder schemaTopic(@Nullable String schemaTopic) {
			this.schemaTopic = schemaTopic;
			return this;
		}

		/**
		 * Sets the topic pattern of outbox events, with {@code {aggregatetype}}
		 * ({@code {aggregatetype}} by default).
		 * @param outboxTopic the pattern
		 * @return this builder
		 */
		public Builder outboxTopic(String outboxTopic) {
			this.outboxTopic = outboxTopic;
			return this;
		}

		/**
		 * Sets the prefix of transactional logical messages relayed as outbox events
		 * (PostgreSQL 14+).
		 * @param prefix the exact prefix, or {@code null} for none
		 * @return this builder
		 */
		public Builder outboxMessagePrefix(@Nullable String prefix) {
			this.outboxMessagePrefix = prefix;
			return this;
		}

		/**
		 * Lets one Kafka transaction cover up to {@code transactions} source transactions
		 * (100 by default), committed early when nothing more is waiting or after
		 * {@code maxDelay} (500 ms by default).
		 * @param transactions the most source transactions per Kafka transaction
		 * @param maxDelay the longest a Kafka transaction waits for more
		 * @return this builder
		 */
		public Builder batch(int transactions, Duration maxDelay) {
			this.batchTransactions = transactions;
			this.batchDelay = maxDelay;
			return this;
		}

		/**
		 * Sets the producer's {@code transaction.timeout.ms} (5 minutes by default): a
		 * source transaction must be relayed within it, and a relay that dies with a
		 * Kafka transaction open holds back {@code read_committed} consumers of its
		 * partitions until another relay starts or it passes.
		 * @param timeout the timeout, at most the broker's
		 * {@code transaction.max.timeout.ms}
		 * @return this builder
		 */
		public Builder transactionTimeout(Duration timeout) {
			this.transactionTimeout = timeout;
			return this;
		}

		/**
		 * Sets how long initialising the producers' transactions, and committing one, may
		 * take (30 s by default): the producers' {@code max.block.ms}, which also bounds
		 * how long a record waits for metadata or buffer space. A relay whose transaction
		 * coordinator does not answer within it is {@code RETRYING}, with the cause.
		 * @param timeout the timeout, positive
		 * @return this builder
		 */
		public Builder initTimeout(Duration timeout) {
			this.initTimeout = timeout;
			return this;
		}

		/**
		 * Sets how long reading the offsets topic or creating it may take (30 s by
		 * default).
		 * @param timeout the timeout
		 * @return this builder
		 */
		public Builder kafkaTimeout(Duration timeout) {
			this.kafkaTimeout = timeout;
			return this;
		}

		/**
		 * Sets the Kafka client properties: common ones (bootstrap servers, security) and
		 * those for the producer, the offsets consumer and the admin client. The relay
		 * sets serializers, idempotence, {@code acks=all}, the transactional id and
		 * {@code read_committed} itself.
		 * @param common properties for every client
		 * @param producer producer properties
		 * @param consumer consumer properties
		 * @param admin admin client properties
		 * @return this builder
		 */
		public Builder kafkaProperties(Map<String, Object> common, Map<String, Object> producer,
				Map<String, Object> consumer, Map<String, Object> admin) {
			this.kafka = Map.copyOf(common);
			this.producer = Map.copyOf(producer);
			this.consumerProperties = Map.copyOf(consumer);
			this.admin = Map.copyOf(admin);
			return this;
		}

		/**
		 * Adds a listener of the relay's consumer, for example metrics. It is told the
		 * consumer's own states, in which a session is {@code RUNNING} from its stream's
		 * start, before the producers are ready; {@link KafkaRelay#state()} is the
		 * relay's.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder listener(ConsumerListener listener) {
			this.listeners.add(listener);
			return this;
		}

		/**
		 * Sets a listener of the relay's Kafka commits, for example metrics.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder commitListener(RelayProgress.Listener listener) {
			this.commitListener = listener;
			return this;
		}

		/**
		 * Checks the configuration and builds the relay; nothing touches a server.
		 * @return the relay, not started
		 * @throws ReplicationConsumerException if the configuration is invalid
		 */
		public KafkaRelay build() {
			if (this.consumer == null) {
				throw new ReplicationConsumerException("A Kafka relay needs a consumer builder with its connections");
			}
			if (this.dataSource == null) {
				throw new ReplicationConsumerException("A Kafka relay needs a data source for catalog look-ups");
			}
			if (this.tables.isEmpty() && this.outboxTable == null && this.outboxMessagePrefix == null) {
				throw new ReplicationConsumerException("A Kafka relay needs tables, an outbox table or an outbox "
						+ "message prefix (postlog.kafka.tables, postlog.kafka.outbox.table, "
						+ "postlog.kafka.outbox.message-prefix)");
			}
			if (this.outboxTable != null && this.tables.contains(this.outboxTable)) {
				throw new ReplicationConsumerException("Table " + this.outboxTable
						+ " is both the outbox table and a relayed table; relay it one way");
			}
			PgIdentifiers.requireSlotName(this.slotName);
			RelayClientProperties clients = clientProperties();
			Set<TableId> distinct = new LinkedHashSet<>(this.tables);
			TopicNames topics = new TopicNames(this.topic, Set.of(this.offsetsTopic));
			for (TableId table : distinct) {
				topics.topic(table);
			}
			TopicNames.require(this.outboxTopic.replace("{aggregatetype}", "x"), "postlog.kafka.outbox.topic");
			this.transactionalId = (this.transactionalIdValue != null) ? this.transactionalIdValue
					: "postlog-" + this.slotName;
			RelayProgress progress = new RelayProgress();
			progress.listener(this.commitListener);
			return new KafkaRelay(this, clients, progress);
		}

		private RelayClientProperties clientProperties() {
			return new RelayClientProperties(this.kafka, this.producer, this.consumerProperties, this.admin,
					this.transactionTimeout, this.initTimeout, this.kafkaTimeout);
		}

	}

}
