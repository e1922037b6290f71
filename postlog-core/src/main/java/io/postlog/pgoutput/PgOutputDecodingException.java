package io.postlog.pgoutput;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

/**
 * Thrown when bytes are not a well-formed pgoutput message. The message names the message
 * type, the byte offset and the reason, never the bytes of a value.
 */
public class PgOutputDecodingException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final @Nullable Character messageType;

	private final int offset;

	private final String reason;

	/**
	 * Creates an exception.
	 * @param messageType the message's first byte, or {@code null} if there was none
	 * @param offset the offset of the offending byte from the start of the message
	 * @param reason what is wrong
	 */
	public PgOutputDecodingException(@Nullable Character messageType, int offset, String reason) {
		super(describe(messageType) + " at byte " + offset + ": " + reason);
		this.messageType = messageType;
		this.offset = offset;
		this.reason = reason;
	}

	private static String describe(@Nullable Character messageType) {
		if (messageType == null) {
			return "Empty pgoutput message";
		}
		char code = messageType;
		MessageTag tag = MessageTag.of(code & 0xFF);
		if (tag != null && tag.code() == code) {
			return "Malformed pgoutput " + tag.displayName() + " message ('" + code + "')";
		}
		return "Unreadable pgoutput message of type 0x" + Integer.toHexString(code);
	}

	/**
	 * Returns the message's type byte as a character ({@code 'I'} for Insert).
	 * @return the type, or {@code null} if the buffer was empty
	 */
	public @Nullable Character messageType() {
		return this.messageType;
	}

	/**
	 * Returns the offset, from the start of the message, where decoding failed.
	 * @return the byte offset
	 */
	public int offset() {
		return this.offset;
	}

	/**
	 * Returns why decoding failed, without the message's context.
	 * @return the reason
	 */
	public String reason() {
		return this.reason;
	}

}
