package io.postlog.consumer.spill;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The buffered messages of one in-progress streamed top-level transaction, in arrival
 * order: a part on the heap, then a part in its spill file. Each message is kept as its
 * (sub)transaction's xid followed by the message without its xid, which is exactly a
 * protocol 1 message. Not thread-safe.
 * <p>
 * <b>Subtransaction aborts.</b> An aborted subtransaction's data messages are skipped
 * when the transaction is replayed; when they form the tail of what is buffered (as they
 * do right after {@code ROLLBACK TO SAVEPOINT}, because later changes are streamed later)
 * their bytes are also given back. Relation, Type and Origin messages are never dropped
 * with a subtransaction: pgoutput sends a relation's schema once per streamed
 * transaction, tagged with the xid of whichever (sub)transaction first touched it, and
 * the transaction's later changes of that table may rely on it.
 */
final class StreamedTransaction {

	/**
	 * The most recent runs (consecutive data messages of one xid) remembered for giving
	 * back the bytes of an aborted subtransaction. Older ones are only skipped at replay,
	 * so a transaction with a savepoint per row does not grow this without bound.
	 */
	static final int RUN_LIMIT = 1024;

	private final long xid;

	private final List<byte @Nullable []> memory = new ArrayList<>();

	private @Nullable SpillFile spill;

	private final Set<Long> abortedSubtransactions = new HashSet<>();

	private final ArrayDeque<Run> runs = new ArrayDeque<>();

	StreamedTransaction(long xid) {
		this.xid = xid;
	}

	long xid() {
		return this.xid;
	}

	List<byte @Nullable []> memory() {
		return this.memory;
	}

	@Nullable SpillFile spill() {
		return this.spill;
	}

	boolean isSkipped(long recordXid, byte tag) {
		return !keptOnAbort(tag) && this.abortedSubtransactions.contains(recordXid);
	}

	static boolean keptOnAbort(byte tag) {
		return tag == 'R' || tag == 'Y' || tag == 'O';
	}

	static long cost(byte[] entry) {
		return (long) entry.length + StreamStorage.ENTRY_OVERHEAD;
	}

	/**
	 * Appends a message: to the heap while nothing of this transaction is spilled and the
	 * budget allows, else to the spill file.
	 * @param storage the budgets
	 * @param recordXid the (sub)transaction the message belongs to
	 * @param tag the message's type byte
	 * @param body the message after its type byte and xid, from position to limit; left
	 * unchanged
	 */
	void append(StreamStorage storage, long recordXid, byte tag, ByteBuffer body) {
		int memoryIndex = this.memory.size();
		SpillFile file = this.spill;
		long spillLength = (file != null) ? file.length() : 0;
		int entryBytes = 5 + body.remaining();
		boolean toMemory = spillLength == 0 && storage.reserveMemory(entryBytes + StreamStorage.ENTRY_OVERHEAD);
		boolean kept = keptOnAbort(tag);
		byte[] entry = (toMemory || kept) ? entry(recordXid, tag, body, entryBytes) : null;
		if (toMemory) {
			this.memory.add(entry);
		}
		else {
			if (file == null) {
				file = storage.createFile(this.xid);
				this.spill = file;
			}
			storage.append(file, this.xid, recordXid, tag, body);
		}
		Run last = this.runs.peekLast();
		if (kept) {
			if (last != null) {
				last.keep(entry);
			}
		}
		else if (last == null || last.xid != recordXid) {
			if (this.runs.size() == RUN_LIMIT) {
				this.runs.removeFirst();
			}
			this.runs.addLast(new Run(recordXid, memoryIndex, spillLength));
		}
	}

	private static byte[] entry(long recordXid, byte tag, ByteBuffer body, int entryBytes) {
		byte[] entry = new byte[entryBytes];
		ByteBuffer.wrap(entry).putInt((int) recordXid).put(tag).put(body.duplicate());
		return entry;
	}

	/**
	 * Drops a subtransaction's data messages: gives back the bytes of the runs at the
	 * tail that belong to aborted subtransactions, keeping the schema messages among
	 * them, and skips the rest at replay.
	 * @param storage the budgets
	 * @param subXid the aborted subtransaction
	 */
	void abortSubtransaction(StreamStorage storage, long subXid) {
		this.abortedSubtransactions.add(subXid);
		Run cut = null;
		List<byte[]> kept = new ArrayList<>();
		Run last;
		while ((last = this.runs.peekLast()) != null && this.abortedSubtransactions.contains(last.xid)) {
			this.runs.removeLast();
			kept.addAll(0, last.kept);
			cut = last;
		}
		if (cut == null) {
			return;
		}
		SpillFile file = this.spill;
		if (file != null && file.length() > cut.spillLength) {
			storage.truncate(file, cut.spillLength);
		}
		for (int i = this.memory.size() - 1; i >= cut.memoryIndex; i--) {
			byte[] entry = this.memory.remove(i);
			if (entry != null) {
				storage.releaseMemory(cost(entry));
			}
		}
		for (byte[] entry : kept) {
			ByteBuffer body = ByteBuffer.wrap(entry, 5, entry.length - 5);
			append(storage, ByteBuffer.wrap(entry).getInt() & 0xFFFFFFFFL, entry[4], body);
		}
	}

	/**
	 * Gives back everything: the heap budget and the spill file.
	 * @param storage the budgets
	 */
	void discard(StreamStorage storage) {
		for (int i = 0; i < this.memory.size(); i++) {
			byte[] entry = this.memory.set(i, null);
			if (entry != null) {
				storage.releaseMemory(cost(entry));
			}
		}
		this.memory.clear();
		SpillFile file = this.spill;
		this.spill = null;
		if (file != null) {
			storage.delete(file);
		}
		this.runs.clear();
	}

	/**
	 * Consecutive data messages of one (sub)transaction, and the schema messages that
	 * arrived among them.
	 */
	private static final class Run {

		final long xid;

		final int memoryIndex;

		final long spillLength;

		final List<byte[]> kept = new ArrayList<>(0);

		Run(long xid, int memoryIndex, long spillLength) {
			this.xid = xid;
			this.memoryIndex = memoryIndex;
			this.spillLength = spillLength;
		}

		void keep(byte[] entry) {
			this.kept.add(entry);
		}

	}

}
