package io.postlog.admin;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

import io.postlog.PostlogException;

/**
 * A logical slot's decoding statistics as {@code pg_stat_replication_slots} reports them
 * (PostgreSQL 14+): what the server spilled to its own disk ({@code pg_replslot}) for
 * transactions larger than {@code logical_decoding_work_mem}, and what it streamed to the
 * client before their commit instead. Counts since the statistics were last reset
 * ({@code pg_stat_reset_replication_slot}), which the server may also do after a crash.
 * Immutable.
 *
 * @param slotName the slot
 * @param spillTxns transactions spilled to disk
 * @param spillCount times transactions were spilled
 * @param spillBytes bytes spilled to disk
 * @param streamTxns in-progress transactions streamed to the client
 * @param streamCount times in-progress transactions were streamed
 * @param streamBytes bytes streamed
 */
public record SlotStatistics(String slotName, long spillTxns, long spillCount, long spillBytes, long streamTxns,
		long streamCount, long streamBytes) {

	private static final int FIRST_VERSION = 14;

	/**
	 * Reads a slot's statistics.
	 * @param connection an ordinary connection to the slot's server, borrowed
	 * @param slotName the slot
	 * @return the statistics, or empty before PostgreSQL 14 and for a slot the view does
	 * not list
	 * @throws PostlogException if the query fails
	 */
	public static Optional<SlotStatistics> read(Connection connection, String slotName) {
		try {
			if (connection.getMetaData().getDatabaseMajorVersion() < FIRST_VERSION) {
				return Optional.empty();
			}
			try (PreparedStatement statement = connection.prepareStatement(
					"SELECT spill_txns, spill_count, spill_bytes, stream_txns, stream_count, stream_bytes "
							+ "FROM pg_stat_replication_slots WHERE slot_name = ?")) {
				statement.setString(1, slotName);
				try (ResultSet row = statement.executeQuery()) {
					if (!row.next()) {
						return Optional.empty();
					}
					return Optional.of(new SlotStatistics(slotName, row.getLong(1), row.getLong(2), row.getLong(3),
							row.getLong(4), row.getLong(5), row.getLong(6)));
				}
			}
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not read the statistics of replication slot '" + slotName + "'", ex);
		}
	}

}
