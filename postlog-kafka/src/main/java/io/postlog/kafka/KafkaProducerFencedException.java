package io.postlog.kafka;

import io.postlog.admin.SlotInUseException;
import org.jspecify.annotations.Nullable;

/**
 * Another producer with the relay's transactional id started, so Kafka fenced this one:
 * another relay of the same slot took over (after this one's replication connection was
 * lost). Nothing of this relay's open Kafka transaction can commit. The consumer treats
 * it as a slot held elsewhere: it reconnects without using up attempts and waits in
 * {@code STANDBY} while the other relay streams, taking over, with a new producer, when
 * the slot is free again.
 */
public class KafkaProducerFencedException extends SlotInUseException {

	private static final long serialVersionUID = 1L;

	private final String transactionalId;

	/**
	 * Creates an exception.
	 * @param slotName the relay's slot
	 * @param transactionalId the producer's transactional id
	 * @param cause the Kafka client's failure
	 */
	public KafkaProducerFencedException(String slotName, String transactionalId, @Nullable Throwable cause) {
		super(slotName, null, cause);
		this.transactionalId = transactionalId;
	}

	@Override
	public String getMessage() {
		return "The Kafka producer of transactional id '" + this.transactionalId + "' relaying slot '" + slotName()
				+ "' was fenced: another relay started with that transactional id";
	}

	/**
	 * Returns the fenced producer's transactional id.
	 * @return the transactional id
	 */
	public String transactionalId() {
		return this.transactionalId;
	}

}
