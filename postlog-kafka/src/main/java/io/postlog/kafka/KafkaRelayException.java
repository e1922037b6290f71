package io.postlog.kafka;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

/**
 * The relay could not write to Kafka, or could not read its relayed position back: the
 * consumer retries it with its retry policy, delivering everything after the relayed
 * position again. Messages name topics, tables, columns and LSNs, never values.
 */
public class KafkaRelayException extends PostlogException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception.
	 * @param message what failed
	 * @param cause the Kafka client's failure, if any
	 */
	public KafkaRelayException(String message, @Nullable Throwable cause) {
		super(message, cause);
	}

}
