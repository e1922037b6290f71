package io.postlog.kafka;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Function;

import io.postlog.Lsn;
import io.postlog.ReplicationConsumerException;
import io.postlog.consumer.CheckpointStore;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A transactional checkpoint store on transactional Kafka producers: the consumer's sink
 * transaction is a Kafka transaction, and its checkpoint is a record in the offsets topic
 * written in that same transaction, so the relayed records and the relayed position
 * commit together or not at all.
 * <p>
 * <b>Two producers, in turn.</b> A Kafka commit returns once the coordinator has decided
 * it, before the commit markers are written; a transaction of the same transactional id
 * that starts at once finds the coordinator still busy with the last one
 * ({@code CONCURRENT_TRANSACTIONS}), and its first records wait 20 to 100 ms on the
 * broker, then the client's {@code retry.backoff.ms}. A relay that keeps up commits back
 * to back, so the store takes turns between two producers, the transactional id and the
 * id followed by {@code -1}: each begins while the other's markers are written. Only one
 * transaction is ever open and the next begins after the last commit returned, so every
 * partition holds the batches in commit order, and the offsets topic's last committed
 * record is the relayed position.
 * <ul>
 * <li>{@link #load()} starts each session: it makes the producers that are missing, whose
 * {@code initTransactions} fences every older producer of their transactional id and
 * completes or aborts what it left open, and then reads the relayed position back from
 * the offsets topic ({@code read_committed}).</li>
 * <li>{@link #begin()} opens the sink transaction; the Kafka transaction begins with its
 * first record, so a batch with nothing to relay costs Kafka nothing.</li>
 * <li>A record the producer fails (its callback says so: the broker is gone, the batch
 * expired) dooms its Kafka transaction: the next record or the commit fails at once, so
 * that the consumer rolls back and retries instead of sending on into it.</li>
 * <li>{@link #commit(Lsn)} adds the offset record and commits; a failure leaves the
 * transaction to {@link #rollback()}, which aborts it or, when it cannot (after a commit
 * that timed out, whose outcome is unknown), closes that producer so that the next
 * session starts with a new one, whose {@code initTransactions} settles it.</li>
 * <li>Initialising a producer's transactions, and committing, wait at most
 * {@code postlog.kafka.init-timeout} (the producer's {@code max.block.ms}): when they
 * time out, the transaction coordinator did not answer, and a
 * {@link CoordinatorDiagnosis} asks the cluster why; the
 * {@link KafkaCoordinatorUnavailableException} that follows carries its answer, and the
 * consumer retries it as a lost connection. The store is {@link #ready()} only from the
 * end of a {@link #load()} that made its producers and read the position: from then on
 * records can flow.</li>
 * <li>A fenced producer closes both and is reported as
 * {@link KafkaProducerFencedException}: the consumer then waits in standby behind the
 * relay that fenced it. Fenced three times in a row with no other relay seen on the slot,
 * the relay fails: something else uses its transactional id.</li>
 * </ul>
 * Called on the consumer's delivery thread only, except {@link #close()}, called once the
 * consumer stopped.
 */
final class KafkaCheckpointStore implements CheckpointStore {

	private static final Logger logger = LoggerFactory.getLogger(KafkaCheckpointStore.class);

	private static final int FOREIGN_FENCES = 3;

	private final String slotName;

	private final String transactionalId;

	private final Function<String, Producer<byte[], byte[]>> factory;

	private final OffsetsTopic offsets;

	private final RelayProgress progress;

	private final Runnable onSession;

	private final CoordinatorDiagnosis diagnosis;

	private final Duration initTimeout;

	/** Whether this session's {@link #load()} succeeded: records can flow. */
	private volatile boolean ready;

	private final String[] transactionalIds;

	@SuppressWarnings("unchecked")
	private final @Nullable Producer<byte[], byte[]>[] producers = new Producer[2];

	/** The producer whose turn it is. */
	private int turn;

	/** Whether the Kafka transaction has begun (with its first record). */
	private boolean open;

	/** Counts the Kafka transactions begun, so that a record's failure finds its own. */
	private long transaction;

	/**
	 * The open transaction's callback for its records, made once per transaction rather
	 * than per record.
	 */
	private Callback callback = failedRecordCallback(0);

	/**
	 * The first failed record of a transaction, from the producer's callback thread. A
	 * failed record dooms its transaction; the next send or the commit reports it at
	 * once, rather than waiting, record after record, for a broker that is gone.
	 */
	private volatile @Nullable FailedRecord failedRecord;

	private boolean offsetSent;

	private long pending;

	private @Nullable Instant pendingCommitTime;

	private boolean fenced;

	private boolean fencedInSession;

	private int fencesInARow;

	private volatile boolean standbySeen;

	KafkaCheckpointStore(String slotName, String transactionalId, Function<String, Producer<byte[], byte[]>> producers,
			OffsetsTopic offsets, RelayProgress progress, Runnable onSession, CoordinatorDiagnosis diagnosis,
			Duration initTimeout) {
		this.slotName = slotName;
		this.transactionalId = transactionalId;
		this.transactionalIds = transactionalIds(transactionalId);
		this.factory = producers;
		this.offsets = offsets;
		this.progress = progress;
		this.onSession = onSession;
		this.diagnosis = diagnosis;
		this.initTimeout = initTimeout;
	}

	@Override
	public Lsn load() {
		this.ready = false;
		if (this.fencedInSession) {
			this.fencesInARow = this.standbySeen ? 0 : this.fencesInARow + 1;
		}
		else {
			this.fencesInARow = 0;
		}
		this.fencedInSession = false;
		this.standbySeen = false;
		if (this.fencesInARow >= FOREIGN_FENCES) {
			throw new ReplicationConsumerException("The Kafka producer of transactional id '" + this.transactionalId
					+ "' relaying slot '" + this.slotName + "' was fenced " + this.fencesInARow
					+ " times in a row while no other relay held the slot: another producer uses this "
					+ "transactional id; give each relay its own (postlog.kafka.transactional-id)");
		}
		this.fenced = false;
		this.onSession.run();
		for (int i = 0; i < this.producers.length; i++) {
			if (this.producers[i] == null) {
				this.producers[i] = newProducer(this.transactionalIds[i]);
			}
		}
		Lsn checkpoint = this.offsets.read();
		this.progress.loaded(checkpoint);
		this.ready = true;
		logger.info("Relay of slot {} resumes after commit LSN {} (from offsets topic {})", this.slotName,
				checkpoint.isValid() ? checkpoint : "none", this.offsets.name());
		return checkpoint;
	}

	/**
	 * Returns the transactional ids of a relay's two producers.
	 * @param transactionalId the configured id
	 * @return the id and the id followed by {@code -1}
	 */
	static String[] transactionalIds(String transactionalId) {
		return new String[] { transactionalId, transactionalId + "-1" };
	}

	/**
	 * Returns whether the producers are initialised and the relayed position was read in
	 * this session, so that records can flow. Any thread.
	 * @return {@code true} once {@link #load()} succeeded, until the next session starts
	 */
	boolean ready() {
		return this.ready;
	}

	/**
	 * Tells the store that the session ended: it is not ready until the next
	 * {@link #load()} succeeds. Any thread.
	 */
	void notReady() {
		this.ready = false;
	}

	private Producer<byte[], byte[]> newProducer(String id) {
		Producer<byte[], byte[]> created = this.factory.apply(id);
		try {
			// Fences older producers of this id and settles what they left open, so the
			// offsets topic read next holds their last commit.
			created.initTransactions();
			return created;
		}
		catch (TimeoutException ex) {
			created.close(Duration.ZERO);
			throw coordinatorUnavailable("The transactional Kafka producer '" + id + "' of slot '" + this.slotName
					+ "' found no transaction coordinator within postlog.kafka.init-timeout ("
					+ this.initTimeout.toMillis() + " ms)", ex);
		}
		catch (KafkaException ex) {
			created.close(Duration.ZERO);
			throw new KafkaRelayException("Could not initialize the transactional Kafka producer '" + id + "' of slot '"
					+ this.slotName + "'", ex);
		}
	}

	private KafkaCoordinatorUnavailableException coordinatorUnavailable(String what, TimeoutException timeout) {
		String cause = this.diagnosis.diagnose();
		logger.debug("Kafka transaction coordinator of slot {} unavailable: {}", this.slotName, cause);
		return new KafkaCoordinatorUnavailableException(what + ": " + cause, timeout);
	}

	@Override
	public void begin() {
		this.pending = 0;
		this.pendingCommitTime = null;
	}

	/**
	 * Sends a record in the open sink transaction. A fenced producer's records are
	 * dropped: its transaction can never commit, and the commit reports the fence.
	 * @param record the record
	 * @param commitTime the source commit time of what it carries
	 * @throws KafkaRelayException if the producer refuses the record
	 */
	void send(ProducerRecord<byte[], byte[]> record, Instant commitTime) {
		if (this.fenced) {
			return;
		}
		Producer<byte[], byte[]> current = requireProducer();
		try {
			if (!this.open) {
				current.beginTransaction();
				this.open = true;
				this.transaction++;
				this.callback = failedRecordCallback(this.transaction);
			}
			else if (requireNoFailedRecord()) {
				return;
			}
			current.send(record, this.callback);
		}
		catch (KafkaException ex) {
			if (isFence(ex)) {
				fence();
				return;
			}
			throw new KafkaRelayException(
					"The Kafka producer of slot '" + this.slotName + "' refused a record for topic " + record.topic(),
					ex);
		}
		this.pending++;
		this.pendingCommitTime = commitTime;
	}

	@Override
	public void commit(Lsn commitLsn) {
		if (this.fenced) {
			throw fencedException(null);
		}
		if (!this.open) {
			return;
		}
		if (requireNoFailedRecord()) {
			throw fencedException(null);
		}
		Producer<byte[], byte[]> current = requireProducer();
		try {
			if (!this.offsetSent) {
				current.send(this.offsets.record(commitLsn));
				this.offsetSent = true;
			}
			current.commitTransaction();
		}
		catch (KafkaException ex) {
			if (isFence(ex)) {
				fence();
				throw fencedException(ex);
			}
			if (ex instanceof TimeoutException timeout) {
				// Its outcome is unknown: the rollback replaces this producer, whose
				// successor's initTransactions settles it.
				throw coordinatorUnavailable("The Kafka transaction of slot '" + this.slotName + "' up to commit LSN "
						+ commitLsn + " was not committed within postlog.kafka.init-timeout ("
						+ this.initTimeout.toMillis() + " ms); the next producer settles its outcome", timeout);
			}
			throw new KafkaRelayException("Could not commit the Kafka transaction of slot '" + this.slotName
					+ "' up to commit LSN " + commitLsn, ex);
		}
		this.open = false;
		this.offsetSent = false;
		this.turn = (this.turn + 1) % this.producers.length;
		this.progress.committed(commitLsn, this.pendingCommitTime, this.pending);
		this.pending = 0;
	}

	@Override
	public void rollback() {
		Producer<byte[], byte[]> current = this.producers[this.turn];
		if (current != null && this.open) {
			try {
				current.abortTransaction();
			}
			catch (KafkaException ex) {
				// A producer that cannot abort (a fatal error, a commit of unknown
				// outcome) is replaced; the next one's initTransactions settles it.
				logger.info("Closing the Kafka producer {} of slot {} that could not abort its transaction ({})",
						this.transactionalIds[this.turn], this.slotName, ex.getClass().getName());
				closeProducer(this.turn);
			}
		}
		this.open = false;
		this.offsetSent = false;
		this.pending = 0;
	}

	/**
	 * Returns the callback of a Kafka transaction's records: it keeps the transaction's
	 * first failed record, on the producer's thread.
	 * @param transaction the transaction's number
	 * @return the callback
	 */
	private Callback failedRecordCallback(long transaction) {
		return (metadata, failure) -> {
			FailedRecord earlier = this.failedRecord;
			if (failure != null && (earlier == null || earlier.transaction() != transaction)) {
				this.failedRecord = new FailedRecord(transaction, failure);
			}
		};
	}

	/**
	 * Reports a failed record of the open transaction: a fence is taken as one.
	 * @return whether the producer was fenced
	 * @throws KafkaRelayException if a record failed otherwise
	 */
	private boolean requireNoFailedRecord() {
		FailedRecord failed = this.failedRecord;
		if (failed == null || failed.transaction() != this.transaction) {
			return false;
		}
		if (isFence(failed.cause())) {
			fence();
			return true;
		}
		throw new KafkaRelayException("A record of the open Kafka transaction of slot '" + this.slotName
				+ "' failed; the transaction is rolled back", failed.cause());
	}

	/**
	 * Tells the store the consumer waited in standby: another relay held the slot.
	 */
	void standby() {
		this.standbySeen = true;
	}

	/**
	 * Closes the producer, aborting nothing explicitly: an open transaction is aborted by
	 * the next producer of the id, or by Kafka's transaction timeout.
	 */
	void close() {
		closeProducers();
	}

	private Producer<byte[], byte[]> requireProducer() {
		Producer<byte[], byte[]> current = this.producers[this.turn];
		if (current == null) {
			throw new KafkaRelayException("The Kafka producer of slot '" + this.slotName + "' is closed", null);
		}
		return current;
	}

	private void fence() {
		this.fenced = true;
		this.fencedInSession = true;
		this.open = false;
		this.offsetSent = false;
		this.progress.fenced();
		logger.warn(
				"The Kafka producer of transactional id '{}' relaying slot {} was fenced by a newer one; "
						+ "this relay stops relaying and waits for the slot",
				this.transactionalIds[this.turn], this.slotName);
		closeProducers();
	}

	private KafkaProducerFencedException fencedException(@Nullable Throwable cause) {
		return new KafkaProducerFencedException(this.slotName, this.transactionalId, cause);
	}

	private void closeProducers() {
		for (int i = 0; i < this.producers.length; i++) {
			closeProducer(i);
		}
	}

	private void closeProducer(int index) {
		Producer<byte[], byte[]> current = this.producers[index];
		this.producers[index] = null;
		if (current != null) {
			try {
				current.close(Duration.ZERO);
			}
			catch (KafkaException ex) {
				logger.debug("Closing the Kafka producer of slot {} failed", this.slotName, ex);
			}
		}
	}

	/**
	 * A record that failed, and the Kafka transaction it was sent in.
	 */
	private record FailedRecord(long transaction, Exception cause) {
	}

	static boolean isFence(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			// A stale epoch on a produce request is the same fact seen by a partition
			// leader: a newer producer of the id bumped it.
			if (cause instanceof ProducerFencedException || cause instanceof InvalidProducerEpochException) {
				return true;
			}
		}
		return false;
	}

}
