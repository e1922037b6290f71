package io.postlog.kafka;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Function;

import io.postlog.Lsn;
import io.postlog.consumer.CheckpointStore;
import io.postlog.consumer.ReplicationConsumerException;
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
 * A transactional checkpoint store on a transactional Kafka producer: the consumer's sink
 * transaction is a Kafka transaction, and its checkpoint is a record in the offsets topic
 * written in that same transaction, so the relayed records and the relayed position
 * commit together or not at all.
 * <ul>
 * <li>{@link #load()} starts each session: it makes the producer if there is none, whose
 * {@code initTransactions} fences every older producer of the transactional id and
 * completes or aborts what it left open, and then reads the relayed position back from
 * the offsets topic ({@code read_committed}).</li>
 * <li>{@link #begin()} opens the sink transaction; the Kafka transaction begins with its
 * first record, so a batch with nothing to relay costs Kafka nothing.</li>
 * <li>{@link #commit(Lsn)} adds the offset record and commits; a commit that timed out is
 * retried as the Kafka client allows, and any other failure leaves the transaction to
 * {@link #rollback()}, which aborts it or, when it cannot, closes the producer so that
 * the next session starts with a new one.</li>
 * <li>A fenced producer is closed and reported as {@link KafkaProducerFencedException}:
 * the consumer then waits in standby behind the relay that fenced it. Fenced three times
 * in a row with no other relay seen on the slot, the relay fails: something else uses its
 * transactional id.</li>
 * </ul>
 * Called on the consumer's delivery thread only, except {@link #close()}, called once the
 * consumer stopped.
 */
final class KafkaCheckpointStore implements CheckpointStore {

	private static final Logger logger = LoggerFactory.getLogger(KafkaCheckpointStore.class);

	private static final int FOREIGN_FENCES = 3;

	private final String slotName;

	private final String transactionalId;

	private final Function<String, Producer<byte[], byte[]>> producers;

	private final OffsetsTopic offsets;

	private final RelayProgress progress;

	private final Runnable onSession;

	private @Nullable Producer<byte[], byte[]> producer;

	/** Whether the Kafka transaction has begun (with its first record). */
	private boolean open;

	private boolean offsetSent;

	private long pending;

	private @Nullable Instant pendingCommitTime;

	private boolean fenced;

	private boolean fencedInSession;

	private int fencesInARow;

	private volatile boolean standbySeen;

	KafkaCheckpointStore(String slotName, String transactionalId, Function<String, Producer<byte[], byte[]>> producers,
			OffsetsTopic offsets, RelayProgress progress, Runnable onSession) {
		this.slotName = slotName;
		this.transactionalId = transactionalId;
		this.producers = producers;
		this.offsets = offsets;
		this.progress = progress;
		this.onSession = onSession;
	}

	@Override
	public Lsn load() {
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
		if (this.producer == null) {
			this.producer = newProducer();
		}
		Lsn checkpoint = this.offsets.read();
		this.progress.loaded(checkpoint);
		logger.info("Relay of slot {} resumes after commit LSN {} (from offsets topic {})", this.slotName,
				checkpoint.isValid() ? checkpoint : "none", this.offsets.name());
		return checkpoint;
	}

	private Producer<byte[], byte[]> newProducer() {
		Producer<byte[], byte[]> created = this.producers.apply(this.transactionalId);
		try {
			// Fences older producers of this id and settles what they left open, so the
			// offsets topic read next holds their last commit.
			created.initTransactions();
			return created;
		}
		catch (KafkaException ex) {
			created.close(Duration.ZERO);
			throw new KafkaRelayException("Could not initialize the transactional Kafka producer '"
					+ this.transactionalId + "' of slot '" + this.slotName + "'", ex);
		}
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
			}
			current.send(record);
		}
		catch (KafkaException ex) {
			if (isFence(ex)) {
				fence(ex);
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
				fence(ex);
				throw fencedException(ex);
			}
			String retry = (ex instanceof TimeoutException) ? " (timed out; the commit is retried)" : "";
			throw new KafkaRelayException("Could not commit the Kafka transaction of slot '" + this.slotName
					+ "' up to commit LSN " + commitLsn + retry, ex);
		}
		this.open = false;
		this.offsetSent = false;
		this.progress.committed(commitLsn, this.pendingCommitTime, this.pending);
		this.pending = 0;
	}

	@Override
	public void rollback() {
		Producer<byte[], byte[]> current = this.producer;
		if (current != null && this.open) {
			try {
				current.abortTransaction();
			}
			catch (KafkaException ex) {
				// A producer that cannot abort (a fatal error, a commit of unknown
				// outcome) is replaced; the next one's initTransactions settles it.
				logger.info("Closing the Kafka producer of slot {} that could not abort its transaction ({})",
						this.slotName, ex.getClass().getName());
				closeProducer();
			}
		}
		this.open = false;
		this.offsetSent = false;
		this.pending = 0;
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
		closeProducer();
	}

	private Producer<byte[], byte[]> requireProducer() {
		Producer<byte[], byte[]> current = this.producer;
		if (current == null) {
			throw new KafkaRelayException("The Kafka producer of slot '" + this.slotName + "' is closed", null);
		}
		return current;
	}

	private void fence(KafkaException cause) {
		this.fenced = true;
		this.fencedInSession = true;
		this.open = false;
		this.offsetSent = false;
		this.progress.fenced();
		logger.warn("The Kafka producer of transactional id '{}' relaying slot {} was fenced by a newer one; "
				+ "this relay stops relaying and waits for the slot", this.transactionalId, this.slotName);
		closeProducer();
	}

	private KafkaProducerFencedException fencedException(@Nullable Throwable cause) {
		return new KafkaProducerFencedException(this.slotName, this.transactionalId, cause);
	}

	private void closeProducer() {
		Producer<byte[], byte[]> current = this.producer;
		this.producer = null;
		if (current != null) {
			try {
				current.close(Duration.ZERO);
			}
			catch (KafkaException ex) {
				logger.debug("Closing the Kafka producer of slot {} failed", this.slotName, ex);
			}
		}
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
