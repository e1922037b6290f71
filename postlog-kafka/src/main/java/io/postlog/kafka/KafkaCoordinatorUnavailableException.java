package io.postlog.kafka;

import io.postlog.admin.ConnectionLostException;
import org.jspecify.annotations.Nullable;

/**
 * The relay's transactional producer could not reach its transaction coordinator within
 * {@code postlog.kafka.init-timeout}: initialising transactions, or committing one, timed
 * out. The message says why when the cluster tells (for example a transaction state log
 * that needs more replicas than there are brokers) and how to fix it. The relay treats it
 * as a lost connection: it is {@code RETRYING}, retries without using up attempts, and
 * relays again once the coordinator answers. Messages name settings, counts, topics and
 * the slot, never values.
 */
public class KafkaCoordinatorUnavailableException extends ConnectionLostException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception.
	 * @param message what timed out, and the diagnosis
	 * @param cause the Kafka client's timeout
	 */
	public KafkaCoordinatorUnavailableException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
