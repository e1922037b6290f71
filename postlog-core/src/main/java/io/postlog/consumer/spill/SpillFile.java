package io.postlog.consumer.spill;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One streamed transaction's spill file: a sequence of records, each a 4-byte length
 * {@code n}, the CRC-32C of the {@code n} bytes that follow, and those bytes (the
 * (sub)transaction's xid, then the message without its xid). Written through
 * {@link StreamStorage}'s buffer, so {@link #length()} may run ahead of what the file
 * holds until the next flush. Not thread-safe.
 */
final class SpillFile {

	/** The length and the checksum in front of every record. */
	static final int HEADER_BYTES = 8;

	private static final Logger logger = LoggerFactory.getLogger(SpillFile.class);

	private final Path path;

	private final FileChannel channel;

	private long length;

	private long flushed;

	SpillFile(Path path, FileChannel channel) {
		this.path = path;
		this.channel = channel;
	}

	Path path() {
		return this.path;
	}

	/**
	 * Returns the bytes written, buffered ones included.
	 * @return the length
	 */
	long length() {
		return this.length;
	}

	void grow(long bytes) {
		this.length += bytes;
	}

	/**
	 * Writes bytes buffered for this file at its end.
	 * @param buffer the bytes, from position to limit
	 */
	void flush(ByteBuffer buffer) throws IOException {
		while (buffer.hasRemaining()) {
			this.flushed += this.channel.write(buffer, this.flushed);
		}
	}

	void truncate(long newLength) throws IOException {
		this.channel.truncate(newLength);
		this.length = newLength;
		this.flushed = newLength;
	}

	/**
	 * Reads at a position; the read-back side of a replay.
	 * @param buffer where to read to
	 * @param position the file offset
	 * @return the bytes read, -1 at the end of the file
	 */
	int read(ByteBuffer buffer, long position) throws IOException {
		return this.channel.read(buffer, position);
	}

	long size() throws IOException {
		return this.channel.size();
	}

	/**
	 * Closes and removes the file. Failures are logged: the directory is removed when its
	 * stream ends, or at the next start.
	 */
	void delete() {
		try {
			this.channel.close();
			Files.deleteIfExists(this.path);
		}
		catch (IOException ex) {
			logger.warn("Could not remove spill file {}: {}", this.path, ex.toString());
		}
	}

}
