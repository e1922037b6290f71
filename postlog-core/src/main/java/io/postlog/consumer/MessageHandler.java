package io.postlog.consumer;

import io.postlog.LogicalMessage;

/**
 * Receives logical decoding messages ({@code pg_logical_emit_message}) on the consumer's
 * delivery thread: transactional ones in commit order with their transaction's changes,
 * non-transactional ones when they arrive.
 */
@FunctionalInterface
public interface MessageHandler {

	/**
	 * Handles one message.
	 * @param message the message
	 * @throws Exception to have the message retried for this handler alone
	 */
	void handle(LogicalMessage message) throws Exception;

}
