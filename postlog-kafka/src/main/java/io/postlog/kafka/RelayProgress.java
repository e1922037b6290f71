package io.postlog.kafka;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import io.postlog.Lsn;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a relay has committed to Kafka: records and Kafka transactions, the last relayed
 * commit LSN (the position written to the offsets topic) with its source commit time, and
 * how often its producer was fenced. Updated on the delivery thread after each Kafka
 * commit; read from any thread.
 */
public final class RelayProgress {

	private static final Logger logger = LoggerFactory.getLogger(RelayProgress.class);

	private final AtomicBoolean listenerWarned = new AtomicBoolean();

	private final AtomicLong records = new AtomicLong();

	private final AtomicLong transactions = new AtomicLong();

	private final AtomicLong fences = new AtomicLong();

	private volatile Lsn lastCommitLsn = Lsn.INVALID;

	private volatile @Nullable Instant lastCommitTime;

	private volatile @Nullable Instant lastKafkaCommit;

	private volatile @Nullable Listener listener;

	RelayProgress() {
	}

	void committed(Lsn commitLsn, @Nullable Instant commitTime, long records) {
		this.records.addAndGet(records);
		this.transactions.incrementAndGet();
		this.lastCommitLsn = commitLsn;
		Instant now = Instant.now();
		if (commitTime != null) {
			this.lastCommitTime = commitTime;
		}
		this.lastKafkaCommit = now;
		Listener current = this.listener;
		if (current != null) {
			try {
				current.committed(records, commitTime, now);
			}
			catch (RuntimeException ex) {
				// Observers must not throw; one that does is not allowed to stop
				// relaying.
				if (this.listenerWarned.compareAndSet(false, true)) {
					logger.warn("Relay progress listener {} failed with {}; relaying goes on (further failures are "
							+ "logged at DEBUG)", current.getClass().getName(), ex.getClass().getName());
				}
				else {
					logger.debug("Relay progress listener {} failed with {}", current.getClass().getName(),
							ex.getClass().getName());
				}
			}
		}
	}

	void loaded(Lsn checkpoint) {
		if (checkpoint.isValid() && !this.lastCommitLsn.isValid()) {
			this.lastCommitLsn = checkpoint;
		}
	}

	void fenced() {
		this.fences.incrementAndGet();
	}

	void listener(@Nullable Listener listener) {
		this.listener = listener;
	}

	/**
	 * Returns the records committed to Kafka by this relay since it started, offset
	 * records not included.
	 * @return the count
	 */
	public long records() {
		return this.records.get();
	}

	/**
	 * Returns the Kafka transactions this relay committed since it started.
	 * @return the count
	 */
	public long transactions() {
		return this.transactions.get();
	}

	/**
	 * Returns how often the relay's producer was fenced since it started.
	 * @return the count
	 */
	public long fences() {
		return this.fences.get();
	}

	/**
	 * Returns the commit LSN of the last source transaction committed to Kafka (read from
	 * the offsets topic until this relay commits one).
	 * @return the LSN, or {@link Lsn#INVALID} before any
	 */
	public Lsn lastCommitLsn() {
		return this.lastCommitLsn;
	}

	/**
	 * Returns the source commit time of the last relayed change.
	 * @return the time, or {@code null} before any
	 */
	public @Nullable Instant lastCommitTime() {
		return this.lastCommitTime;
	}

	/**
	 * Returns when the relay last committed a Kafka transaction.
	 * @return the time, or {@code null} before any
	 */
	public @Nullable Instant lastKafkaCommit() {
		return this.lastKafkaCommit;
	}

	/**
	 * Hears each Kafka commit of the relay, on its delivery thread; must be quick and
	 * must not throw.
	 */
	@FunctionalInterface
	public interface Listener {

		/**
		 * A Kafka transaction committed.
		 * @param records the records it held, the offset record not included
		 * @param commitTime the source commit time of its last record, or {@code null}
		 * @param kafkaCommit when the commit returned
		 */
		void committed(long records, @Nullable Instant commitTime, Instant kafkaCommit);

	}

}
