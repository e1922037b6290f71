package io.postlog.pgoutput;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

import io.postlog.Lsn;
import org.jspecify.annotations.Nullable;

/**
 * Bounds-checked big-endian reads over one message, from the buffer's position to its
 * limit. Reads never move the caller's buffer and every failure is a
 * {@link PgOutputDecodingException} naming the offset from the message's start.
 */
final class WireReader {

	/** Seconds from 1970-01-01 to PostgreSQL's epoch, 2000-01-01 UTC. */
	private static final long POSTGRES_EPOCH_SECONDS = 946_684_800L;

	private final ByteBuffer buffer;

	private final int start;

	private final int limit;

	private int position;

	private @Nullable Character messageType;

	WireReader(ByteBuffer buffer) {
		// A duplicate so that the caller's byte order and position stay as they are.
		this.buffer = buffer.duplicate().order(ByteOrder.BIG_ENDIAN);
		this.start = buffer.position();
		this.limit = buffer.limit();
		this.position = this.start;
	}

	void messageType(char type) {
		this.messageType = type;
	}

	int remaining() {
		return this.limit - this.position;
	}

	int offset() {
		return this.position - this.start;
	}

	PgOutputDecodingException error(String reason) {
		return errorAt(offset(), reason);
	}

	PgOutputDecodingException errorAt(int offset, String reason) {
		return new PgOutputDecodingException(this.messageType, offset, reason);
	}

	private void require(int bytes, String what) {
		if (this.limit - this.position < bytes) {
			throw error("message ends inside " + what + " (" + bytes + " bytes needed, " + remaining() + " left)");
		}
	}

	int uint8(String what) {
		require(1, what);
		return this.buffer.get(this.position++) & 0xFF;
	}

	int uint16(String what) {
		require(2, what);
		int value = this.buffer.getShort(this.position) & 0xFFFF;
		this.position += 2;
		return value;
	}

	int int32(String what) {
		require(4, what);
		int value = this.buffer.getInt(this.position);
		this.position += 4;
		return value;
	}

	long uint32(String what) {
		return int32(what) & 0xFFFF_FFFFL;
	}

	long int64(String what) {
		require(8, what);
		long value = this.buffer.getLong(this.position);
		this.position += 8;
		return value;
	}

	Lsn lsn(String what) {
		return Lsn.of(int64(what));
	}

	Instant timestamp(String what) {
		long micros = int64(what);
		return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L) + POSTGRES_EPOCH_SECONDS,
				Math.floorMod(micros, 1_000_000L) * 1_000L);
	}

	/**
	 * Reads a count whose every element takes at least {@code minimumElementBytes}, so
	 * that a corrupt count fails here instead of allocating for elements that cannot be
	 * there.
	 */
	int count(int count, int countOffset, int minimumElementBytes, String what) {
		if (count < 0) {
			throw errorAt(countOffset, what + " " + count + " is negative");
		}
		if ((long) count * minimumElementBytes > remaining()) {
			throw errorAt(countOffset, what + " " + count + " exceeds the " + remaining() + " bytes left");
		}
		return count;
	}

	String string(String what) {
		int end = this.position;
		while (end < this.limit && this.buffer.get(end) != 0) {
			end++;
		}
		if (end == this.limit) {
			throw error(what + " has no NUL terminator");
		}
		byte[] bytes = new byte[end - this.position];
		this.buffer.get(this.position, bytes);
		this.position = end + 1;
		return new String(bytes, StandardCharsets.UTF_8);
	}

	byte[] bytes(String what) {
		int lengthOffset = offset();
		int length = int32(what + " length");
		if (length < 0) {
			throw errorAt(lengthOffset, what + " length " + length + " is negative");
		}
		if (length > remaining()) {
			throw errorAt(lengthOffset, what + " length " + length + " exceeds the " + remaining() + " bytes left");
		}
		byte[] bytes = new byte[length];
		this.buffer.get(this.position, bytes);
		this.position += length;
		return bytes;
	}

	void end() {
		if (this.position != this.limit) {
			throw error(remaining() + " trailing bytes after the message");
		}
	}

}
