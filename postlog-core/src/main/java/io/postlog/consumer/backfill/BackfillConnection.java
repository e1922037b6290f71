package io.postlog.consumer.backfill;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.BooleanSupplier;

import io.postlog.admin.PgErrors;
import io.postlog.snapshot.SnapshotReadException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backfill runner's one connection for reading chunks and recording progress: opened
 * on first use, closed and opened again after a failure, with the reconnect policy's
 * back-off for a lost connection and the retry policy's attempts for other failures. Used
 * by the runner's thread only.
 */
final class BackfillConnection {

	/** The category it logged under as part of the runner, kept for users. */
	private static final Logger logger = LoggerFactory.getLogger("io.postlog.consumer.backfill.BackfillRunner");

	/** The consumer hosting the runner. */
	private final BackfillHost config;

	private final BackfillSettings settings;

	private final BooleanSupplier stopped;

	private @Nullable Connection connection;

	BackfillConnection(BackfillHost config, BackfillSettings settings, BooleanSupplier stopped) {
		this.config = config;
		this.settings = settings;
		this.stopped = stopped;
	}

	/**
	 * Runs work on the runner's connection, reconnecting after connection failures with
	 * the reconnect policy's back-off, as long as the consumer runs; other failures use
	 * the retry policy's attempts and back-off.
	 * @return the work's result, or {@code null} if the consumer stops or the backfill
	 * was cancelled first
	 */
	<T> @Nullable T run(@Nullable BackfillJob backfill, Work<T> work) throws InterruptedException {
		for (int attempt = 1;; attempt++) {
			if (this.stopped.getAsBoolean() || (backfill != null && backfill.cancelRequested())) {
				return null;
			}
			try {
				if (this.connection == null) {
					this.connection = this.settings.readers().connect();
					this.connection.setAutoCommit(true);
				}
				return work.run(this.connection);
			}
			catch (SQLException ex) {
				close();
				boolean connectionLost = PgErrors.isConnectionFailure(ex);
				if (!connectionLost && !this.config.canRetry(attempt)) {
					throw new SnapshotReadException("A backfill of slot " + this.config.slotName() + " failed", null,
							null, ex);
				}
				Duration backOff = connectionLost ? this.config.reconnectBackOff(attempt)
						: this.config.retryBackOff(attempt);
				logger.warn("Backfill of slot {} retrying in {} ms after {} (SQLState {})", this.config.slotName(),
						backOff.toMillis(), ex.getClass().getName(), PgErrors.sqlState(ex));
				Thread.sleep(backOff.toMillis());
			}
		}
	}

	void close() {
		Connection current = this.connection;
		this.connection = null;
		if (current != null) {
			try {
				current.close();
			}
			catch (SQLException ex) {
				logger.debug("Closing the backfill connection failed", ex);
			}
		}
	}

	@FunctionalInterface
	interface Work<T> {

		T run(Connection connection) throws SQLException, InterruptedException;

	}

}
