package io.postlog;

import java.util.Arrays;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A logical decoding message written with {@code pg_logical_emit_message}.
 * {@link #toString()} gives the content's length, not its bytes.
 *
 * @param prefix the prefix the writer chose
 * @param content the payload (copied)
 * @param transactional whether it was written as part of a transaction (delivered at
 * commit) rather than at once
 * @param lsn the LSN of the message
 */
public record LogicalMessage(String prefix, byte[] content, boolean transactional, Lsn lsn) {

	/**
	 * Creates a message.
	 * @param prefix the prefix
	 * @param content the payload
	 * @param transactional whether it is transactional
	 * @param lsn the LSN
	 */
	public LogicalMessage {
		Objects.requireNonNull(prefix, "prefix");
		Objects.requireNonNull(lsn, "lsn");
		content = content.clone();
	}

	@Override
	public byte[] content() {
		return this.content.clone();
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return this == other || (other instanceof LogicalMessage message && this.prefix.equals(message.prefix)
				&& Arrays.equals(this.content, message.content) && this.transactional == message.transactional
				&& this.lsn.equals(message.lsn));
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.prefix, Arrays.hashCode(this.content), this.transactional, this.lsn);
	}

	@Override
	public String toString() {
		return "LogicalMessage[prefix=" + this.prefix + ", content=" + this.content.length + " bytes, transactional="
				+ this.transactional + ", lsn=" + this.lsn + "]";
	}

}
