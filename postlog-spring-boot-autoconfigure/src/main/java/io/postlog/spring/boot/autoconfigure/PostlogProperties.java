package io.postlog.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.postlog.consumer.ColumnMasks;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Configuration properties for postlog ({@code postlog.*}). Not thread-safe; bound once
 * at start-up.
 */
@ConfigurationProperties("postlog")
public class PostlogProperties {

	/**
	 * Whether to stream changes to the application's listeners.
	 */
	private boolean enabled = true;

	/**
	 * Comma-separated list of tables to publish, as schema.table or table (public);
	 * defaults to the union of the listeners' tables.
	 */
	private List<String> tables = new ArrayList<>();

	/**
	 * Logical decoding output plugin: pgoutput (PostgreSQL 10+), wal2json (format version
	 * 2) or pglogical (pglogical_output); listeners receive the same changes whatever the
	 * plugin.
	 */
	private Decoder decoder = Decoder.PGOUTPUT;

	/**
	 * Whether to ask the server for binary values. Defaults to binary where the decoder
	 * carries it (pgoutput on PostgreSQL 14+), text for wal2json and pglogical, which
	 * refuse binary asked for.
	 */
	private @Nullable Boolean binary;

	/**
	 * Interval between standby status updates sent to the server.
	 */
	private Duration statusInterval = Duration.ofSeconds(10);

	/**
	 * Most changes a transaction listener may receive in one transaction before the
	 * consumer fails.
	 */
	private int maxTransactionChanges = 100_000;

	/**
	 * Longest time a connect, login or START_REPLICATION of the replication connection
	 * may take before it is given up and retried.
	 */
	private Duration connectTimeout = Duration.ofSeconds(10);

	@NestedConfigurationProperty
	private final PostlogSlotProperties slot = new PostlogSlotProperties();

	@NestedConfigurationProperty
	private final PostlogPublicationProperties publication = new PostlogPublicationProperties();

	@NestedConfigurationProperty
	private final PostlogSnapshotProperties snapshot = new PostlogSnapshotProperties();

	@NestedConfigurationProperty
	private final PostlogRetryProperties retry = new PostlogRetryProperties();

	@NestedConfigurationProperty
	private final PostlogReconnectProperties reconnect = new PostlogReconnectProperties();

	@NestedConfigurationProperty
	private final PostlogHeartbeatProperties heartbeat = new PostlogHeartbeatProperties();

	@NestedConfigurationProperty
	private final PostlogHealthProperties health = new PostlogHealthProperties();

	@NestedConfigurationProperty
	private final PostlogDatasourceProperties datasource = new PostlogDatasourceProperties();

	@NestedConfigurationProperty
	private final PostlogCheckpointProperties checkpoint = new PostlogCheckpointProperties();

	@NestedConfigurationProperty
	private final PostlogDeliveryProperties delivery = new PostlogDeliveryProperties();

	@NestedConfigurationProperty
	private final PostlogStreamingProperties streaming = new PostlogStreamingProperties();

	@NestedConfigurationProperty
	private final PostlogListenerProperties listener = new PostlogListenerProperties();

	@NestedConfigurationProperty
	private final PostlogEndpointProperties endpoint = new PostlogEndpointProperties();

	@NestedConfigurationProperty
	private final PostlogWal2jsonProperties wal2json = new PostlogWal2jsonProperties();

	@NestedConfigurationProperty
	private final PostlogPglogicalProperties pglogical = new PostlogPglogicalProperties();

	@NestedConfigurationProperty
	private final PostlogTracingProperties tracing = new PostlogTracingProperties();

	/**
	 * Consumer groups by name, each with a slot and publication of its own.
	 */
	private final Map<String, Group> groups = new LinkedHashMap<>();

	/**
	 * Row filters and column lists of the default group's tables, by table (table or
	 * [schema.table]), pushed into its publication (PostgreSQL 15 and later).
	 */
	private final Map<String, PostlogFilterProperties> filters = new LinkedHashMap<>();

	/**
	 * Masks of column values by table (table or [schema.table]) and column: null, hash
	 * (HMAC-SHA-256 keyed by mask-key) or redact; applied before listeners, the Kafka
	 * relay and dead letters see a change.
	 */
	private final Map<String, Map<String, ColumnMasks.Mask>> mask = new LinkedHashMap<>();

	/**
	 * Key of the hash mask (HMAC-SHA-256), at least 16 bytes of UTF-8; required when a
	 * column is hashed. Keep it secret: anyone holding it can test guesses of a hashed
	 * value.
	 */
	private @Nullable String maskKey;

	public Map<String, Map<String, ColumnMasks.Mask>> getMask() {
		return this.mask;
	}

	public @Nullable String getMaskKey() {
		return this.maskKey;
	}

	public void setMaskKey(@Nullable String maskKey) {
		this.maskKey = maskKey;
	}

	public PostlogListenerProperties getListener() {
		return this.listener;
	}

	public PostlogEndpointProperties getEndpoint() {
		return this.endpoint;
	}

	public Map<String, Group> getGroups() {
		return this.groups;
	}

	public Map<String, PostlogFilterProperties> getFilters() {
		return this.filters;
	}

	/**
	 * Returns the row filters and column lists of a consumer group's tables.
	 * @param group the group, empty for the default group
	 * @return {@code filters} for the default group, else {@code groups.<name>.filters}
	 * (none when the group has no settings)
	 */
	public Map<String, PostlogFilterProperties> filters(String group) {
		if (group.isEmpty()) {
			return this.filters;
		}
		Group settings = this.groups.get(group);
		return (settings != null) ? settings.getFilters() : Map.of();
	}

	/**
	 * Returns the slot of a consumer group.
	 * @param group the group, empty for the default group
	 * @return {@code slot.name} for the default group, else
	 * {@code groups.<name>.slot.name} or {@code postlog_<name>}
	 */
	public String slotName(String group) {
		if (group.isEmpty()) {
			return this.slot.getName();
		}
		Group settings = this.groups.get(group);
		return (settings != null && settings.getSlot().getName() != null) ? settings.getSlot().getName()
				: "postlog_" + group;
	}

	/**
	 * Returns the publication of a consumer group.
	 * @param group the group, empty for the default group
	 * @return {@code publication.name} for the default group, else
	 * {@code groups.<name>.publication.name} or {@code postlog_<name>}
	 */
	public String publicationName(String group) {
		if (group.isEmpty()) {
			return this.publication.getName();
		}
		Group settings = this.groups.get(group);
		return (settings != null && settings.getPublication().getName() != null) ? settings.getPublication().getName()
				: "postlog_" + group;
	}

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public List<String> getTables() {
		return this.tables;
	}

	public void setTables(List<String> tables) {
		this.tables = tables;
	}

	public Decoder getDecoder() {
		return this.decoder;
	}

	public void setDecoder(Decoder decoder) {
		this.decoder = decoder;
	}

	public @Nullable Boolean getBinary() {
		return this.binary;
	}

	public void setBinary(@Nullable Boolean binary) {
		this.binary = binary;
	}

	public PostlogWal2jsonProperties getWal2json() {
		return this.wal2json;
	}

	public PostlogPglogicalProperties getPglogical() {
		return this.pglogical;
	}

	public Duration getStatusInterval() {
		return this.statusInterval;
	}

	public void setStatusInterval(Duration statusInterval) {
		this.statusInterval = statusInterval;
	}

	public int getMaxTransactionChanges() {
		return this.maxTransactionChanges;
	}

	public void setMaxTransactionChanges(int maxTransactionChanges) {
		this.maxTransactionChanges = maxTransactionChanges;
	}

	public Duration getConnectTimeout() {
		return this.connectTimeout;
	}

	public void setConnectTimeout(Duration connectTimeout) {
		this.connectTimeout = connectTimeout;
	}

	public PostlogDeliveryProperties getDelivery() {
		return this.delivery;
	}

	public PostlogStreamingProperties getStreaming() {
		return this.streaming;
	}

	public PostlogSlotProperties getSlot() {
		return this.slot;
	}

	public PostlogPublicationProperties getPublication() {
		return this.publication;
	}

	public PostlogSnapshotProperties getSnapshot() {
		return this.snapshot;
	}

	public PostlogRetryProperties getRetry() {
		return this.retry;
	}

	public PostlogReconnectProperties getReconnect() {
		return this.reconnect;
	}

	public PostlogHeartbeatProperties getHeartbeat() {
		return this.heartbeat;
	}

	public PostlogTracingProperties getTracing() {
		return this.tracing;
	}

	public PostlogHealthProperties getHealth() {
		return this.health;
	}

	public PostlogDatasourceProperties getDatasource() {
		return this.datasource;
	}

	public PostlogCheckpointProperties getCheckpoint() {
		return this.checkpoint;
	}

	/**
	 * Logical decoding output plugins.
	 */
	public enum Decoder {

		/** PostgreSQL's built-in pgoutput plugin (PostgreSQL 10+). */
		PGOUTPUT,

		/**
		 * The wal2json plugin, format version 2, streaming the tables of postlog.tables
		 * or the listeners (PostgreSQL 9.6+).
		 */
		WAL2JSON,

		/**
		 * pglogical's pglogical_output plugin, streaming
		 * postlog.pglogical.replication-sets (PostgreSQL 9.6+).
		 */
		PGLOGICAL

	}

	/**
	 * Built-in listener error handlers.
	 */
	public enum ErrorHandler {

		/**
		 * Stop the listener's group (FAILED); nothing past the change is acknowledged.
		 */
		STOP,

		/** Log the change, count it in postlog.listener.skipped and go on. */
		SKIP,

		/** Write the change to postlog_dead_letter, count it, and go on. */
		DEAD_LETTER

	}

	/**
	 * A consumer group's settings.
	 */
	public static class Group {

		private final GroupSlot slot = new GroupSlot();

		private final GroupPublication publication = new GroupPublication();

		/**
		 * Row filters and column lists of the group's tables, by table (table or
		 * [schema.table]), pushed into its publication (PostgreSQL 15 and later).
		 */
		private final Map<String, PostlogFilterProperties> filters = new LinkedHashMap<>();

		public GroupSlot getSlot() {
			return this.slot;
		}

		public Map<String, PostlogFilterProperties> getFilters() {
			return this.filters;
		}

		public GroupPublication getPublication() {
			return this.publication;
		}

	}

	/**
	 * A consumer group's slot.
	 */
	public static class GroupSlot {

		/**
		 * Name of the group's replication slot; defaults to postlog_ followed by the
		 * group's name.
		 */
		private @Nullable String name;

		public @Nullable String getName() {
			return this.name;
		}

		public void setName(@Nullable String name) {
			this.name = name;
		}

	}

	/**
	 * A consumer group's publication.
	 */
	public static class GroupPublication {

		/**
		 * Name of the group's publication; defaults to postlog_ followed by the group's
		 * name.
		 */
		private @Nullable String name;

		public @Nullable String getName() {
			return this.name;
		}

		public void setName(@Nullable String name) {
			this.name = name;
		}

	}

	/**
	 * What happens to the tables publication mode sync adds at start.
	 */
	public enum NewTables {

		/** Backfill them while the other tables stream. */
		BACKFILL,

		/** Stream their changes from now on only. */
		SKIP

	}

	/**
	 * Initial snapshot modes.
	 */
	public enum SnapshotMode {

		/** Stream changes only. */
		NEVER,

		/**
		 * When postlog creates the slot, deliver every existing row as a SNAPSHOT change
		 * first.
		 */
		INITIAL

	}

	/**
	 * Checkpoint stores.
	 */
	public enum CheckpointStore {

		/** The replication slot's confirmed position: at least once. */
		SLOT,

		/**
		 * A checkpoint table written in the listeners' transaction, through the
		 * application's transaction manager: effect-once for database sinks.
		 */
		JDBC

	}

}
