package io.postlog.consumer.backfill;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

import io.postlog.TableId;
import io.postlog.snapshot.BackfillReader;
import io.postlog.snapshot.BackfillRefusedException;
import io.postlog.snapshot.ChunkRange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a resumable initial snapshot records its chunks: as the parts of a backfill in
 * the backfill progress table, under an id beginning with
 * {@link BackfillStore#SNAPSHOT_PREFIX}, so that after a crash the {@link BackfillRunner}
 * reads the chunks not done between watermarks while the slot streams from the snapshot's
 * consistent point. Each part holds its chunk's range as numbers ({@link ChunkRange}); a
 * done part is not read again. Used on the delivery thread; callers pass the connection.
 * <p>
 * Internal: public only so the consumer's initial snapshot can use it; not part of
 * postlog's API.
 */
public final class SnapshotChunkRecord {

	private static final Logger logger = LoggerFactory.getLogger(SnapshotChunkRecord.class);

	/** The consumer hosting the backfills. */
	private final BackfillHost config;

	private final BackfillRunner runner;

	private final BackfillStore store;

	private final Watermarks watermarks;

	private final BackfillReader reader;

	/**
	 * Creates the record of a consumer with backfills.
	 * @param config the consumer hosting the backfills
	 * @param settings how it backfills
	 * @param runner the runner that resumes an interrupted snapshot
	 * @param reader plans the tables
	 * @param serverVersion the server's version number
	 */
	public SnapshotChunkRecord(BackfillHost config, BackfillSettings settings, BackfillRunner runner,
			BackfillReader reader, int serverVersion) {
		this.config = config;
		this.runner = runner;
		this.store = new BackfillStore(settings.progressTable(), config.slotName());
		this.watermarks = new Watermarks(serverVersion, settings.watermarkTable(), config.slotName());
		this.reader = reader;
	}

	/**
	 * Returns a new id for a snapshot's record.
	 * @return the id
	 */
	public static String newId() {
		return BackfillStore.SNAPSHOT_PREFIX + UUID.randomUUID();
	}

	/**
	 * Returns whether an interrupted snapshot of the table could be resumed by a
	 * backfill: it has a key and is not partitioned.
	 * @param connection an ordinary connection
	 * @param table the table
	 * @return whether it could be resumed
	 * @throws SQLException if the table cannot be planned
	 */
	public boolean resumable(Connection connection, TableId table) throws SQLException {
		try {
			this.reader.plan(connection, table, this.config.publicationName());
			return true;
		}
		catch (BackfillRefusedException ex) {
			logger.info("The initial snapshot of slot {} is taken again, not resumed, after a crash: {}",
					this.config.slotName(), ex.getMessage());
			return false;
		}
	}

	/**
	 * Records the chunks (replacing any earlier snapshot of the slot), before the first
	 * row is delivered; prepares the watermarks the resuming backfill writes.
	 * @param connection an ordinary connection in auto-commit
	 * @param id the snapshot's id ({@link #newId()})
	 * @param chunks the chunks
	 * @throws SQLException if they cannot be recorded
	 */
	public void record(Connection connection, String id, List<ChunkRange> chunks) throws SQLException {
		this.store.create(connection);
		this.watermarks.prepare(connection, this.config.publicationName());
		this.store.insertSnapshot(connection, id, chunks);
	}

	/**
	 * Records that every subscription finished a chunk.
	 * @param connection an ordinary connection in auto-commit
	 * @param id the snapshot's id
	 * @param ordinal the chunk's position in the record
	 * @throws SQLException if it cannot be recorded
	 */
	public void done(Connection connection, String id, int ordinal) throws SQLException {
		this.store.save(connection, id, ordinal, null, 0, true);
	}

	/**
	 * Removes the record once the snapshot was handed over.
	 * @param connection an ordinary connection in auto-commit
	 * @param id the snapshot's id
	 * @throws SQLException if it cannot be removed
	 */
	public void forget(Connection connection, String id) throws SQLException {
		this.store.delete(connection, id);
	}

	/**
	 * Queues the backfill that resumes an interrupted snapshot, before the stream starts.
	 * @param connection an ordinary connection in auto-commit
	 * @throws SQLException if the record cannot be read
	 */
	public void resume(Connection connection) throws SQLException {
		this.runner.resumeSnapshot(connection);
	}

}
