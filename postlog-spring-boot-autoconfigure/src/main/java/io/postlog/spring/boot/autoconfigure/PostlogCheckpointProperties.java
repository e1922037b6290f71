package io.postlog.spring.boot.autoconfigure;

import java.time.Duration;

import io.postlog.spring.boot.autoconfigure.PostlogProperties.CheckpointStore;

/**
 * Checkpoint settings. Bound under {@code postlog.checkpoint}, a group of
 * {@link PostlogProperties}; not thread-safe, bound once at start-up.
 */
public class PostlogCheckpointProperties {

	/**
	 * Where delivery progress is kept: the replication slot only (at least once), or also
	 * a checkpoint row written in each listener transaction on the application's
	 * DataSource (effect-once for database sinks).
	 */
	private CheckpointStore store = CheckpointStore.SLOT;

	/**
	 * Checkpoint table of the jdbc store, as table or schema.table; one row per slot.
	 */
	private String table = "postlog_checkpoint";

	/**
	 * Whether the jdbc store creates its checkpoint table when it is missing.
	 */
	private boolean createTable = true;

	/**
	 * Most source transactions one sink transaction of the jdbc store covers.
	 */
	private int batchTransactions = 1;

	/**
	 * Longest time a sink transaction of the jdbc store stays open for more source
	 * transactions; it commits at once when nothing more is waiting.
	 */
	private Duration batchMaxDelay = Duration.ofMillis(100);

	public CheckpointStore getStore() {
		return this.store;
	}

	public void setStore(CheckpointStore store) {
		this.store = store;
	}

	public String getTable() {
		return this.table;
	}

	public void setTable(String table) {
		this.table = table;
	}

	public boolean isCreateTable() {
		return this.createTable;
	}

	public void setCreateTable(boolean createTable) {
		this.createTable = createTable;
	}

	public int getBatchTransactions() {
		return this.batchTransactions;
	}

	public void setBatchTransactions(int batchTransactions) {
		this.batchTransactions = batchTransactions;
	}

	public Duration getBatchMaxDelay() {
		return this.batchMaxDelay;
	}

	public void setBatchMaxDelay(Duration batchMaxDelay) {
		this.batchMaxDelay = batchMaxDelay;
	}

}
