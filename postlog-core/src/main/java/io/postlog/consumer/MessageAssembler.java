package io.postlog.consumer;

import java.nio.ByteBuffer;
import java.util.Deque;
import java.util.List;

import io.postlog.consumer.delivery.Event;

/**
 * Turns the stream's payloads into events, keeping whatever state the protocol needs
 * (relations, the open transaction, buffered streamed transactions). One per stream, used
 * by the reader thread only, which closes it when the stream ends.
 */
interface MessageAssembler extends AutoCloseable {

	/**
	 * Decodes one payload.
	 * @param payload one output plugin message
	 * @return the events it yields, possibly none
	 */
	List<Event> assemble(ByteBuffer payload);

	/**
	 * Returns whether a transaction has begun and not yet committed, or a part of one is
	 * being received or passed on.
	 * @return {@code true} inside a transaction
	 */
	boolean inTransaction();

	/**
	 * Returns whether the assembler holds a committed transaction whose events are still
	 * to be assembled with {@link #assembleBuffered}; the stream must not be read until
	 * they are, so that transactions and relations keep stream order.
	 * @return {@code true} while it does
	 */
	default boolean hasBuffered() {
		return false;
	}

	/**
	 * Assembles the next events of the buffered transaction: at least one payload's, then
	 * more while the bounds allow.
	 * @param into where the events go, in order
	 * @param maxEvents stop once {@code into} has grown by this many events
	 * @param maxBytes stop once the payloads assembled reach this many bytes
	 */
	default void assembleBuffered(Deque<Event> into, int maxEvents, long maxBytes) {
	}

	/**
	 * Releases what the assembler holds (spill files among it). Idempotent.
	 */
	@Override
	default void close() {
	}

}
