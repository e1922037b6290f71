package io.postlog.consumer;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Turns the stream's payloads into events, keeping whatever state the protocol needs
 * (relations, the open transaction). One per stream, used by the reader thread only.
 */
interface MessageAssembler {

	/**
	 * Decodes one payload.
	 * @param payload one output plugin message
	 * @return the events it yields, possibly none
	 */
	List<Event> assemble(ByteBuffer payload);

	/**
	 * Returns whether a transaction has begun and not yet committed.
	 * @return {@code true} inside a transaction
	 */
	boolean inTransaction();

}
