package io.postlog.spring.boot.actuate;

import java.time.Instant;
import java.util.Map;

import io.postlog.Lsn;
import io.postlog.consumer.ConsumerState;
import io.postlog.spring.PostlogSlotMonitor;
import org.jspecify.annotations.Nullable;

/**
 * A consumer that runs beside the listener registry's groups, such as the Kafka relay,
 * and that the {@code postlog} endpoint describes with them when it is a bean. Read on
 * each call of the endpoint, from any thread: implementations are thread-safe.
 */
public interface PostlogEndpointConsumer {

	/**
	 * Returns the name the endpoint shows as the consumer's group.
	 * @return the name
	 */
	String group();

	/**
	 * Returns the consumer's state.
	 * @return the state, or {@code null} when it does not run
	 */
	@Nullable ConsumerState state();

	/**
	 * Returns the position the consumer acknowledged to the server.
	 * @return the position, or {@code null} when it does not run
	 */
	@Nullable Lsn ackedLsn();

	/**
	 * Returns the source commit time of the last transaction the consumer handled.
	 * @return the time, or {@code null} before any
	 */
	@Nullable Instant lastCommitTime();

	/**
	 * Returns the consumer's latest failure, whose message carries no row values.
	 * @return the failure, or {@code null} when there was none
	 */
	@Nullable Throwable lastFailure();

	/**
	 * Returns the monitor of the consumer's slot and publication.
	 * @return the monitor
	 */
	PostlogSlotMonitor monitor();

	/**
	 * Returns what the endpoint shows of the consumer beyond the common fields.
	 * @return the details, JSON-friendly values, possibly empty
	 */
	Map<String, Object> details();

}
