package io.postlog.kafka.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.kafka.CloudEventsMode;
import io.postlog.kafka.RelayFormat;
import io.postlog.spring.boot.autoconfigure.PostlogFilterProperties;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the Kafka relay ({@code postlog.kafka.*}). Not thread-safe;
 * bound once at start-up.
 */
@ConfigurationProperties("postlog.kafka")
public class PostlogKafkaProperties {

	/**
	 * Whether to relay changes and outbox events to Kafka.
	 */
	private boolean enabled;

	/**
	 * Whether the relay starts with the application; when false, start the
	 * PostlogKafkaRelay bean yourself.
	 */
	private boolean autoStartup = true;

	/**
	 * Comma-separated list of tables whose changes are relayed, as schema.table or table
	 * (public).
	 */
	private List<String> tables = new ArrayList<>();

	/**
	 * Topic of each table's changes; {schema} and {table} are replaced by the table's.
	 */
	private String topic = "{schema}.{table}";

	/**
	 * Topic of the relayed tables' schema changes, in the Kafka transaction of the
	 * changes, keyed by table, in the form format gives; unset, schema changes are not
	 * relayed.
	 */
	private @Nullable String schemaTopic;

	/**
	 * Compacted topic holding each slot's last relayed commit LSN, written in the same
	 * Kafka transaction as the records; created with one partition if missing.
	 */
	private String offsetsTopic = "postlog.offsets";

	/**
	 * Form of change records: postlog (postlog's own change JSON), debezium (Debezium's
	 * change event envelope, as Flink's debezium-json format reads it) or cloudevents (a
	 * CloudEvent whose id is the change id, see cloudevents.mode).
	 */
	private RelayFormat format = RelayFormat.POSTLOG;

	/**
	 * Transactional id of the relay's producer; defaults to postlog- and the slot name.
	 * Every relay needs its own, the same across restarts.
	 */
	private @Nullable String transactionalId;

	/**
	 * Most source transactions one Kafka transaction may cover.
	 */
	private int batchTransactions = 100;

	/**
	 * Longest time a Kafka transaction stays open waiting for more source transactions.
	 */
	private Duration batchDelay = Duration.ofMillis(500);

	/**
	 * The producer's transaction timeout: a source transaction must be relayed within it,
	 * and a relay that dies with a Kafka transaction open holds back read_committed
	 * consumers of its partitions until another relay starts or it passes.
	 */
	private Duration transactionTimeout = Duration.ofMinutes(5);

	/**
	 * Longest time initialising the producers' transactions, or committing one, may take
	 * (the producers' max.block.ms); a relay whose transaction coordinator does not
	 * answer within it is RETRYING, with the cause, and health is DOWN.
	 */
	private Duration initTimeout = Duration.ofSeconds(30);

	/**
	 * Row filters and column lists of the relayed tables, by table (table or
	 * [schema.table]), pushed into the relay's publication (PostgreSQL 15 and later), as
	 * postlog.filters for a listener group's.
	 */
	private final Map<String, PostlogFilterProperties> filters = new LinkedHashMap<>();

	private final Slot slot = new Slot();

	private final Publication publication = new Publication();

	private final Outbox outbox = new Outbox();

	private final CloudEvents cloudevents = new CloudEvents();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public boolean isAutoStartup() {
		return this.autoStartup;
	}

	public void setAutoStartup(boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	public List<String> getTables() {
		return this.tables;
	}

	public void setTables(List<String> tables) {
		this.tables = tables;
	}

	public String getTopic() {
		return this.topic;
	}

	public void setTopic(String topic) {
		this.topic = topic;
	}

	public @Nullable String getSchemaTopic() {
		return this.schemaTopic;
	}

	public void setSchemaTopic(@Nullable String schemaTopic) {
		this.schemaTopic = schemaTopic;
	}

	public String getOffsetsTopic() {
		return this.offsetsTopic;
	}

	public void setOffsetsTopic(String offsetsTopic) {
		this.offsetsTopic = offsetsTopic;
	}

	public RelayFormat getFormat() {
		return this.format;
	}

	public void setFormat(RelayFormat format) {
		this.format = format;
	}

	public @Nullable String getTransactionalId() {
		return this.transactionalId;
	}

	public void setTransactionalId(@Nullable String transactionalId) {
		this.transactionalId = transactionalId;
	}

	public int getBatchTransactions() {
		return this.batchTransactions;
	}

	public void setBatchTransactions(int batchTransactions) {
		this.batchTransactions = batchTransactions;
	}

	public Duration getBatchDelay() {
		return this.batchDelay;
	}

	public void setBatchDelay(Duration batchDelay) {
		this.batchDelay = batchDelay;
	}

	public Duration getTransactionTimeout() {
		return this.transactionTimeout;
	}

	public void setTransactionTimeout(Duration transactionTimeout) {
		this.transactionTimeout = transactionTimeout;
	}

	public Duration getInitTimeout() {
		return this.initTimeout;
	}

	public void setInitTimeout(Duration initTimeout) {
		this.initTimeout = initTimeout;
	}

	public Map<String, PostlogFilterProperties> getFilters() {
		return this.filters;
	}

	public Slot getSlot() {
		return this.slot;
	}

	public Publication getPublication() {
		return this.publication;
	}

	public Outbox getOutbox() {
		return this.outbox;
	}

	public CloudEvents getCloudevents() {
		return this.cloudevents;
	}

	/**
	 * The relay's replication slot.
	 */
	public static class Slot {

		/**
		 * Name of the relay's replication slot, separate from the listeners' slot.
		 */
		private String name = "postlog_kafka";

		/**
		 * How the relay's slot is managed: existing, create-if-missing, temporary or
		 * owned.
		 */
		private SlotLifecycle lifecycle = SlotLifecycle.CREATE_IF_MISSING;

		public String getName() {
			return this.name;
		}

		public void setName(String name) {
			this.name = name;
		}

		public SlotLifecycle getLifecycle() {
			return this.lifecycle;
		}

		public void setLifecycle(SlotLifecycle lifecycle) {
			this.lifecycle = lifecycle;
		}

	}

	/**
	 * The relay's publication.
	 */
	public static class Publication {

		/**
		 * Name of the relay's publication.
		 */
		private String name = "postlog_kafka";

		/**
		 * How the relay's publication is managed: existing, create-if-missing or sync
		 * (adds the relayed tables it lacks).
		 */
		private PublicationMode mode = PublicationMode.SYNC;

		public String getName() {
			return this.name;
		}

		public void setName(String name) {
			this.name = name;
		}

		public PublicationMode getMode() {
			return this.mode;
		}

		public void setMode(PublicationMode mode) {
			this.mode = mode;
		}

	}

	/**
	 * Outbox events.
	 */
	public static class Outbox {

		/**
		 * Outbox table whose inserted rows are relayed as messages (columns
		 * aggregatetype, aggregateid, type, payload and optionally id); deletes are
		 * ignored.
		 */
		private @Nullable String table;

		/**
		 * Topic of outbox events; {aggregatetype} is replaced by the event's.
		 */
		private String topic = "{aggregatetype}";

		/**
		 * Prefix of transactional logical messages relayed as outbox events (PostgreSQL
		 * 14+), whose content is a JSON object with the outbox columns as fields.
		 */
		private @Nullable String messagePrefix;

		public @Nullable String getTable() {
			return this.table;
		}

		public void setTable(@Nullable String table) {
			this.table = table;
		}

		public String getTopic() {
			return this.topic;
		}

		public void setTopic(String topic) {
			this.topic = topic;
		}

		public @Nullable String getMessagePrefix() {
			return this.messagePrefix;
		}

		public void setMessagePrefix(@Nullable String messagePrefix) {
			this.messagePrefix = messagePrefix;
		}

	}

	/**
	 * CloudEvents, when the format is cloudevents.
	 */
	public static class CloudEvents {

		/**
		 * How an event is carried: binary (the value is postlog's change JSON, the
		 * attributes ce_ headers) or structured (the value is the whole event as JSON).
		 */
		private CloudEventsMode mode = CloudEventsMode.BINARY;

		public CloudEventsMode getMode() {
			return this.mode;
		}

		public void setMode(CloudEventsMode mode) {
			this.mode = mode;
		}

	}

}
