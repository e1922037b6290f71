package io.postlog.pgoutput;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;

import io.postlog.Lsn;
import org.jspecify.annotations.Nullable;

/**
 * Bounds-checked big-endian reads over one message, held in an array from {@code start}
 * to {@code limit}. Every failure is a {@link PgOutputDecodingException} naming the
 * offset from the message's start. Values read with {@link #value} are slices of the
 * array, not copies.
 */
final class WireReader {

	/** Seconds from 1970-01-01 to PostgreSQL's epoch, 2000-01-01 UTC. */
	private static final long POSTGRES_EPOCH_SECONDS = 946_684_800L;

	/**
	 * One reader per thread for in-place decoding, reset for each message: decoding a
	 * change then allocates nothing for the reading itself. Its array is let go when the
	 * message is done.
	 */
	private static final byte[] EMPTY = {};

	private static final ThreadLocal<WireReader> inPlace = ThreadLocal.withInitial(() -> new WireReader(EMPTY, 0, 0));

	private byte[] array;

	private int start;

	private int limit;

	private int position;

	private @Nullable Character messageType;

	private int lastLength;

	WireReader(byte[] array, int start, int limit) {
		this.array = array;
		this.start = start;
		this.limit = limit;
		this.position = start;
	}

	/**
	 * Reads the bytes from a buffer's position to its limit, without moving the buffer:
	 * in place when the buffer has an accessible array and {@code retain} allows it, else
	 * from a copy.
	 * @param buffer the message
	 * @param retain whether the reader's slices may point into the buffer's array
	 * @return the reader
	 */
	static WireReader over(ByteBuffer buffer, boolean retain) {
		if (retain && buffer.hasArray()) {
			int offset = buffer.arrayOffset();
			WireReader reader = inPlace.get();
			reader.reset(buffer.array(), offset + buffer.position(), offset + buffer.limit());
			return reader;
		}
		byte[] copy = new byte[buffer.remaining()];
		buffer.get(buffer.position(), copy);
		return new WireReader(copy, 0, copy.length);
	}

	private void reset(byte[] array, int start, int limit) {
		this.array = array;
		this.start = start;
		this.limit = limit;
		this.position = start;
		this.messageType = null;
		this.lastLength = 0;
	}

	/**
	 * Lets go of the message's array once it is decoded, so that a thread's reader does
	 * not keep the last message alive.
	 */
	void release() {
		this.array = EMPTY;
		this.start = 0;
		this.limit = 0;
		this.position = 0;
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
		return this.array[this.position++] & 0xFF;
	}

	int uint16(String what) {
		require(2, what);
		byte[] b = this.array;
		int at = this.position;
		this.position = at + 2;
		return ((b[at] & 0xFF) << 8) | (b[at + 1] & 0xFF);
	}

	int int32(String what) {
		require(4, what);
		byte[] b = this.array;
		int at = this.position;
		this.position = at + 4;
		return (b[at] << 24) | ((b[at + 1] & 0xFF) << 16) | ((b[at + 2] & 0xFF) << 8) | (b[at + 3] & 0xFF);
	}

	long uint32(String what) {
		return int32(what) & 0xFFFF_FFFFL;
	}

	long int64(String what) {
		require(8, what);
		long high = int32(what);
		return (high << 32) | (int32(what) & 0xFFFF_FFFFL);
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
		while (end < this.limit && this.array[end] != 0) {
			end++;
		}
		if (end == this.limit) {
			throw error(what + " has no NUL terminator");
		}
		String value = new String(this.array, this.position, end - this.position, StandardCharsets.UTF_8);
		this.position = end + 1;
		return value;
	}

	/**
	 * Reads a length-prefixed value and returns where it lies in the array.
	 * @param what the value, for errors
	 * @return the value's start; its length is {@link #lastLength()}
	 */
	int value(String what) {
		int lengthOffset = offset();
		int length = int32(what + " length");
		if (length < 0) {
			throw errorAt(lengthOffset, what + " length " + length + " is negative");
		}
		if (length > remaining()) {
			throw errorAt(lengthOffset, what + " length " + length + " exceeds the " + remaining() + " bytes left");
		}
		int at = this.position;
		this.position += length;
		this.lastLength = length;
		return at;
	}

	int lastLength() {
		return this.lastLength;
	}

	byte[] array() {
		return this.array;
	}

	byte[] bytes(String what) {
		int at = value(what);
		return Arrays.copyOfRange(this.array, at, at + this.lastLength);
	}

	void end() {
		if (this.position != this.limit) {
			throw error(remaining() + " trailing bytes after the message");
		}
	}

}
