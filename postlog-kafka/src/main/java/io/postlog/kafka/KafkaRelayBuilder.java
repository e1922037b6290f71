package io.postlog.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import javax.sql.DataSource;

import io.postlog.ReplicationConsumerException;
import io.postlog.TableId;
import io.postlog.admin.PgIdentifiers;
import io.postlog.admin.TableFilter;
import io.postlog.consumer.ConsumerListener;
import io.postlog.consumer.ReplicationConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Configures a {@link KafkaRelay}; made by {@link KafkaRelay#builder()}, and checked when
 * the relay is built. Not thread-safe.
 */
public final class KafkaRelayBuilder {

	ReplicationConsumer.@Nullable Builder consumer;

	@Nullable DataSource dataSource;

	String slotName = "postlog_kafka";

	String publicationName = "postlog_kafka";

	List<TableId> tables = List.of();

	Map<TableId, TableFilter> filters = Map.of();

	String topic = "{schema}.{table}";

	String offsetsTopic = "postlog.offsets";

	RelayFormat format = RelayFormat.POSTLOG;

	CloudEventsMode cloudEventsMode = CloudEventsMode.BINARY;

	@Nullable String transactionalIdValue;

	String transactionalId = "";

	@Nullable TableId outboxTable;

	String outboxTopic = "{aggregatetype}";

	@Nullable String outboxMessagePrefix;

	@Nullable String schemaTopic;

	int batchTransactions = 100;

	Duration batchDelay = Duration.ofMillis(500);

	Duration transactionTimeout = Duration.ofMinutes(5);

	Duration kafkaTimeout = Duration.ofSeconds(30);

	Duration initTimeout = Duration.ofSeconds(30);

	Map<String, Object> kafka = Map.of();

	Map<String, Object> producer = Map.of();

	Map<String, Object> consumerProperties = Map.of();

	Map<String, Object> admin = Map.of();

	final List<ConsumerListener> listeners = new ArrayList<>();

	RelayProgress.@Nullable Listener commitListener;

	KafkaRelayBuilder() {
	}

	/**
	 * Sets the replication consumer builder, configured with its connections, retry
	 * policy and timing; the relay sets its slot, publication, tables, row filters and
	 * column lists, subscriptions, checkpoint store and listener.
	 * @param consumer the builder
	 * @return this builder
	 */
	public KafkaRelayBuilder consumer(ReplicationConsumer.Builder consumer) {
		this.consumer = consumer;
		return this;
	}

	/**
	 * Sets the data source for catalog look-ups (replica-identity keys, the outbox
	 * table's columns).
	 * @param dataSource the data source
	 * @return this builder
	 */
	public KafkaRelayBuilder dataSource(DataSource dataSource) {
		this.dataSource = dataSource;
		return this;
	}

	/**
	 * Sets the relay's slot ({@code postlog_kafka} by default).
	 * @param slotName the slot name
	 * @return this builder
	 */
	public KafkaRelayBuilder slotName(String slotName) {
		this.slotName = slotName;
		return this;
	}

	/**
	 * Sets the relay's publication ({@code postlog_kafka} by default).
	 * @param publicationName the publication name
	 * @return this builder
	 */
	public KafkaRelayBuilder publicationName(String publicationName) {
		this.publicationName = publicationName;
		return this;
	}

	/**
	 * Sets the tables whose changes are relayed.
	 * @param tables the tables
	 * @return this builder
	 */
	public KafkaRelayBuilder tables(List<TableId> tables) {
		this.tables = List.copyOf(tables);
		return this;
	}

	/**
	 * Sets the row filters and column lists pushed into the relay's publication, by table
	 * (PostgreSQL 15 and later), as a consumer's
	 * {@link ReplicationConsumer.Builder#filters(Map) filters}: each filtered table must
	 * be relayed (or be the outbox table); they are checked on the server when the relay
	 * starts, refused before PostgreSQL 15 naming the server's version, and a publication
	 * that already publishes a table with another filter is refused. Only the rows and
	 * columns they select reach Kafka; the server sends no others.
	 * @param filters the filters by table; empty ones are ignored
	 * @return this builder
	 */
	public KafkaRelayBuilder filters(Map<TableId, TableFilter> filters) {
		this.filters = Map.copyOf(filters);
		return this;
	}

	/**
	 * Sets the topic pattern, with {@code {schema}} and {@code {table}}
	 * ({@code {schema}.{table}} by default).
	 * @param topic the pattern
	 * @return this builder
	 */
	public KafkaRelayBuilder topic(String topic) {
		this.topic = topic;
		return this;
	}

	/**
	 * Sets the form of change records ({@link RelayFormat#POSTLOG} by default).
	 * @param format the form
	 * @return this builder
	 */
	public KafkaRelayBuilder format(RelayFormat format) {
		this.format = Objects.requireNonNull(format, "format");
		return this;
	}

	/**
	 * Sets how CloudEvents are carried when the format is {@link RelayFormat#CLOUDEVENTS}
	 * ({@link CloudEventsMode#BINARY} by default).
	 * @param mode the mode
	 * @return this builder
	 */
	public KafkaRelayBuilder cloudEventsMode(CloudEventsMode mode) {
		this.cloudEventsMode = Objects.requireNonNull(mode, "mode");
		return this;
	}

	/**
	 * Sets the compacted topic holding each slot's relayed position
	 * ({@code postlog.offsets} by default; created with one partition if missing).
	 * @param offsetsTopic the topic
	 * @return this builder
	 */
	public KafkaRelayBuilder offsetsTopic(String offsetsTopic) {
		this.offsetsTopic = offsetsTopic;
		return this;
	}

	/**
	 * Sets the producer's transactional id ({@code postlog-} and the slot name by
	 * default); every relay needs its own, the same across its restarts.
	 * @param transactionalId the id
	 * @return this builder
	 */
	public KafkaRelayBuilder transactionalId(String transactionalId) {
		this.transactionalIdValue = transactionalId;
		return this;
	}

	/**
	 * Sets the outbox table, whose inserted rows are relayed as messages.
	 * @param outboxTable the table, or {@code null} for none
	 * @return this builder
	 */
	public KafkaRelayBuilder outboxTable(@Nullable TableId outboxTable) {
		this.outboxTable = outboxTable;
		return this;
	}

	/**
	 * Sets the topic the schema changes of the relayed tables go to, in the Kafka
	 * transaction of the source transaction they came in and before its first change in
	 * the new shape, keyed by table, in the {@linkplain #format(RelayFormat) format} of
	 * the change records ({@code null}, the default: not relayed).
	 * @param schemaTopic the topic, or {@code null}
	 * @return this builder
	 */
	public KafkaRelayBuilder schemaTopic(@Nullable String schemaTopic) {
		this.schemaTopic = schemaTopic;
		return this;
	}

	/**
	 * Sets the topic pattern of outbox events, with {@code {aggregatetype}}
	 * ({@code {aggregatetype}} by default).
	 * @param outboxTopic the pattern
	 * @return this builder
	 */
	public KafkaRelayBuilder outboxTopic(String outboxTopic) {
		this.outboxTopic = outboxTopic;
		return this;
	}

	/**
	 * Sets the prefix of transactional logical messages relayed as outbox events
	 * (PostgreSQL 14+).
	 * @param prefix the exact prefix, or {@code null} for none
	 * @return this builder
	 */
	public KafkaRelayBuilder outboxMessagePrefix(@Nullable String prefix) {
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
	public KafkaRelayBuilder batch(int transactions, Duration maxDelay) {
		this.batchTransactions = transactions;
		this.batchDelay = maxDelay;
		return this;
	}

	/**
	 * Sets the producer's {@code transaction.timeout.ms} (5 minutes by default): a source
	 * transaction must be relayed within it, and a relay that dies with a Kafka
	 * transaction open holds back {@code read_committed} consumers of its partitions
	 * until another relay starts or it passes.
	 * @param timeout the timeout, at most the broker's {@code transaction.max.timeout.ms}
	 * @return this builder
	 */
	public KafkaRelayBuilder transactionTimeout(Duration timeout) {
		this.transactionTimeout = timeout;
		return this;
	}

	/**
	 * Sets how long initialising the producers' transactions, and committing one, may
	 * take (30 s by default): the producers' {@code max.block.ms}, which also bounds how
	 * long a record waits for metadata or buffer space. A relay whose transaction
	 * coordinator does not answer within it is {@code RETRYING}, with the cause.
	 * @param timeout the timeout, positive
	 * @return this builder
	 */
	public KafkaRelayBuilder initTimeout(Duration timeout) {
		this.initTimeout = timeout;
		return this;
	}

	/**
	 * Sets how long reading the offsets topic or creating it may take (30 s by default).
	 * @param timeout the timeout
	 * @return this builder
	 */
	public KafkaRelayBuilder kafkaTimeout(Duration timeout) {
		this.kafkaTimeout = timeout;
		return this;
	}

	/**
	 * Sets the Kafka client properties: common ones (bootstrap servers, security) and
	 * those for the producer, the offsets consumer and the admin client. The relay sets
	 * serializers, idempotence, {@code acks=all}, the transactional id and
	 * {@code read_committed} itself.
	 * @param common properties for every client
	 * @param producer producer properties
	 * @param consumer consumer properties
	 * @param admin admin client properties
	 * @return this builder
	 */
	public KafkaRelayBuilder kafkaProperties(Map<String, Object> common, Map<String, Object> producer,
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
	 * start, before the producers are ready; {@link KafkaRelay#state()} is the relay's.
	 * @param listener the listener
	 * @return this builder
	 */
	public KafkaRelayBuilder listener(ConsumerListener listener) {
		this.listeners.add(listener);
		return this;
	}

	/**
	 * Sets a listener of the relay's Kafka commits, for example metrics.
	 * @param listener the listener
	 * @return this builder
	 */
	public KafkaRelayBuilder commitListener(RelayProgress.Listener listener) {
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
			throw new ReplicationConsumerException(
					"Table " + this.outboxTable + " is both the outbox table and a relayed table; relay it one way");
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
