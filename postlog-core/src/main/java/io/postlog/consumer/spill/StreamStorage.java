package io.postlog.consumer.spill;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

import org.jspecify.annotations.Nullable;

/**
 * The budgets every open streamed transaction of one stream draws on (heap bytes and
 * spill bytes, all transactions together) and the one write buffer their spill files
 * share. Stream blocks carry one transaction each, so consecutive writes nearly always go
 * to the same file and one buffer serves them all. Used by one thread; the spill counters
 * may be read from any thread.
 */
final class StreamStorage implements AutoCloseable {

	static final int BUFFER_BYTES = 64 * 1024;

	/**
	 * What a message kept on the heap costs beyond its bytes: the array header and its
	 * slot in the transaction's list.
	 */
	static final int ENTRY_OVERHEAD = 32;

	private final StreamingOptions options;

	private final SpillDirectory directory;

	private final ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES);

	private final ByteBuffer header = ByteBuffer.allocate(SpillFile.HEADER_BYTES + 5);

	private final CRC32C checksum = new CRC32C();

	private @Nullable SpillFile buffered;

	private long memory;

	private final AtomicLong spilled = new AtomicLong();

	private final AtomicLong spilledTotal = new AtomicLong();

	StreamStorage(StreamingOptions options, String label) {
		this.options = options;
		this.directory = new SpillDirectory(options.spillDirectory(), label);
	}

	/**
	 * Takes heap budget if there is enough left.
	 * @param bytes the cost
	 * @return whether it was taken
	 */
	boolean reserveMemory(long bytes) {
		if (this.memory + bytes > this.options.memory()) {
			return false;
		}
		this.memory += bytes;
		return true;
	}

	void releaseMemory(long bytes) {
		this.memory -= bytes;
	}

	long memory() {
		return this.memory;
	}

	long spilled() {
		return this.spilled.get();
	}

	long spilledTotal() {
		return this.spilledTotal.get();
	}

	SpillDirectory directory() {
		return this.directory;
	}

	SpillFile createFile(long xid) {
		return this.directory.create(xid);
	}

	/**
	 * Appends one record to a spill file.
	 * @param file the transaction's file
	 * @param xid the top-level transaction, for errors
	 * @param recordXid the (sub)transaction the message belongs to
	 * @param tag the message's type byte
	 * @param body the message after its type byte and xid, from position to limit; left
	 * unchanged
	 * @throws SpillLimitExceededException if the record would take the spill files past
	 * their limit
	 * @throws SpillFileException if writing fails
	 */
	void append(SpillFile file, long xid, long recordXid, byte tag, ByteBuffer body) {
		int length = 5 + body.remaining();
		long bytes = SpillFile.HEADER_BYTES + (long) length;
		if (this.spilled.get() + bytes > this.options.maxSpill()) {
			throw new SpillLimitExceededException(this.options.maxSpill(), xid, this.spilled.get());
		}
		this.checksum.reset();
		int xidBits = (int) recordXid;
		this.checksum.update(xidBits >>> 24);
		this.checksum.update(xidBits >>> 16);
		this.checksum.update(xidBits >>> 8);
		this.checksum.update(xidBits);
		this.checksum.update(tag);
		this.checksum.update(body.duplicate());
		this.header.clear();
		this.header.putInt(length).putInt((int) this.checksum.getValue()).putInt(xidBits).put(tag).flip();
		try {
			if (this.buffered != file || this.buffer.remaining() < bytes) {
				flush();
			}
			if (this.buffer.remaining() >= bytes) {
				this.buffer.put(this.header).put(body.duplicate());
				this.buffered = file;
			}
			else {
				file.flush(this.header);
				file.flush(body.duplicate());
			}
		}
		catch (IOException ex) {
			throw new SpillFileException("Could not write spill file " + file.path() + " of streamed transaction " + xid
					+ " at offset " + file.length(), ex);
		}
		file.grow(bytes);
		this.spilled.addAndGet(bytes);
		this.spilledTotal.addAndGet(bytes);
	}

	/**
	 * Writes the buffered bytes to their file.
	 * @throws SpillFileException if writing fails
	 */
	void flush() {
		SpillFile file = this.buffered;
		if (file == null) {
			return;
		}
		this.buffer.flip();
		try {
			file.flush(this.buffer);
		}
		catch (IOException ex) {
			throw new SpillFileException("Could not write spill file " + file.path(), ex);
		}
		finally {
			this.buffer.clear();
			this.buffered = null;
		}
	}

	void truncate(SpillFile file, long length) {
		if (this.buffered == file) {
			flush();
		}
		long removed = file.length() - length;
		try {
			file.truncate(length);
		}
		catch (IOException ex) {
			throw new SpillFileException("Could not truncate spill file " + file.path() + " to " + length + " bytes",
					ex);
		}
		this.spilled.addAndGet(-removed);
	}

	/**
	 * Removes a spill file, dropping any of its bytes still buffered.
	 * @param file the file
	 */
	void delete(SpillFile file) {
		if (this.buffered == file) {
			this.buffer.clear();
			this.buffered = null;
		}
		file.delete();
		this.spilled.addAndGet(-file.length());
	}

	@Override
	public void close() {
		this.buffer.clear();
		this.buffered = null;
		this.directory.close();
	}

}
