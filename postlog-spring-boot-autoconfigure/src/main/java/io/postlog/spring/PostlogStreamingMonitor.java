package io.postlog.spring;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import io.postlog.PostlogException;
import io.postlog.admin.SlotStatistics;
import io.postlog.consumer.ConsumerListener;
import org.jspecify.annotations.Nullable;

/**
 * What large transactions cost, on both sides: the spill files the consumer keeps for
 * in-progress streamed transactions (heard from the consumer as a
 * {@link ConsumerListener}), and what the server spilled and streamed for the slot
 * ({@code pg_stat_replication_slots}, PostgreSQL 14+, read over the application's
 * {@link DataSource}: by the slot's {@link PostlogSlotMonitor} in the background when
 * given one, else on each call). Thread-safe.
 */
public final class PostlogStreamingMonitor implements ConsumerListener {

	private final DataSource dataSource;

	private final String slotName;

	private final boolean enabled;

	private final @Nullable PostlogSlotMonitor slotMonitor;

	private volatile long spilledBytes;

	private volatile long spilledBytesTotal;

	/**
	 * Creates a monitor.
	 * @param dataSource the application's data source
	 * @param slotName the slot
	 * @param enabled whether the consumer streams in-progress transactions
	 */
	public PostlogStreamingMonitor(DataSource dataSource, String slotName, boolean enabled) {
		this(dataSource, slotName, enabled, null);
	}

	/**
	 * Creates a monitor whose server statistics are the slot monitor's latest reading.
	 * @param dataSource the application's data source
	 * @param slotName the slot
	 * @param enabled whether the consumer streams in-progress transactions
	 * @param slotMonitor the slot's monitor, or {@code null} to read on each call
	 */
	public PostlogStreamingMonitor(DataSource dataSource, String slotName, boolean enabled,
			@Nullable PostlogSlotMonitor slotMonitor) {
		this.dataSource = dataSource;
		this.slotName = slotName;
		this.enabled = enabled;
		this.slotMonitor = slotMonitor;
	}

	/**
	 * Returns the slot name.
	 * @return the slot name
	 */
	public String slotName() {
		return this.slotName;
	}

	/**
	 * Returns whether the consumer streams in-progress transactions.
	 * @return {@code true} with {@code postlog.streaming.enabled}
	 */
	public boolean enabled() {
		return this.enabled;
	}

	/**
	 * Returns the bytes of spill files the consumer has on disk now.
	 * @return the bytes, {@code 0} without streaming
	 */
	public long spilledBytes() {
		return this.spilledBytes;
	}

	/**
	 * Returns the bytes the consumer wrote to spill files since it started.
	 * @return the bytes, {@code 0} without streaming
	 */
	public long spilledBytesTotal() {
		return this.spilledBytesTotal;
	}

	/**
	 * Reads what the server spilled and streamed for the slot.
	 * @return the statistics, or {@code null} before PostgreSQL 14, for a slot the server
	 * does not list, or while the slot monitor cannot read the server
	 * @throws PostlogException if the database cannot be reached (only without a slot
	 * monitor)
	 */
	public @Nullable SlotStatistics serverStatistics() {
		PostlogSlotMonitor slotMonitor = this.slotMonitor;
		if (slotMonitor != null) {
			PostlogSlotMonitor.Reading reading = slotMonitor.reading();
			return reading.available() ? reading.statistics() : null;
		}
		try (Connection connection = this.dataSource.getConnection()) {
			return SlotStatistics.read(connection, this.slotName).orElse(null);
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not read the statistics of replication slot '" + this.slotName + "'", ex);
		}
	}

	@Override
	public void spilled(long bytes, long totalBytes) {
		this.spilledBytes = bytes;
		this.spilledBytesTotal = totalBytes;
	}

}
