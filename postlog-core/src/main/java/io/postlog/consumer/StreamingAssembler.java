package io.postlog.consumer;

import java.nio.ByteBuffer;
import java.util.Deque;
import java.util.List;

import io.postlog.consumer.delivery.Event;
import io.postlog.consumer.spill.Replay;
import io.postlog.consumer.spill.StreamedTransactions;
import io.postlog.pgoutput.PgOutputDecoder;
import io.postlog.pgoutput.PgOutputMessage;
import org.jspecify.annotations.Nullable;

/**
 * Assembles a pgoutput stream of protocol 2 with {@code streaming 'on'}: the payloads of
 * stream blocks go undecoded to the session's {@link StreamedTransactions}, aborts
 * discard there, and at each Stream Commit the transaction's {@link Replay} is held until
 * the reader has passed it through the protocol 1 {@link PgOutputAssembler}, which gives
 * its changes the commit LSN, time, indexes and ids protocol 1 would have given them.
 * Relation messages reach the row decoder in stream order because the reader reads
 * nothing further while a replay is held. Everything else goes to the protocol 1
 * assembler as it comes. One per session; not thread-safe (the reader thread's).
 */
final class StreamingAssembler implements MessageAssembler {

	private final PgOutputAssembler assembler;

	private final StreamedTransactions streams;

	private final StreamingSpill spill;

	private @Nullable Replay replay;

	private boolean closed;

	/**
	 * Creates the assembler of one session.
	 * @param assembler the protocol 1 assembler of the session
	 * @param streams the session's buffer of streamed transactions, closed with this
	 * @param spill the consumer's spill across sessions, told of this one's
	 */
	StreamingAssembler(PgOutputAssembler assembler, StreamedTransactions streams, StreamingSpill spill) {
		this.assembler = assembler;
		this.streams = streams;
		this.spill = spill;
		spill.sessionStarted(streams);
	}

	@Override
	public List<Event> assemble(ByteBuffer payload) {
		if (this.replay != null) {
			throw new IllegalStateException("The stream was read while a streamed transaction was being passed on");
		}
		if (this.streams.inBlock()) {
			if (StreamedTransactions.isStreamStop(payload)) {
				this.streams.stop();
				this.spill.changed();
			}
			else {
				this.streams.feed(payload);
			}
			return List.of();
		}
		byte tag = payload.hasRemaining() ? payload.get(payload.position()) : 0;
		if (tag != 'S' && tag != 'A' && tag != 'c') {
			return this.assembler.assemble(payload);
		}
		PgOutputMessage message = PgOutputDecoder.decode(payload);
		if (message instanceof PgOutputMessage.StreamStart start) {
			this.streams.start(start);
		}
		else if (message instanceof PgOutputMessage.StreamAbort abort) {
			this.streams.abort(abort);
			this.spill.changed();
		}
		else if (message instanceof PgOutputMessage.StreamCommit commit) {
			this.replay = this.streams.commit(commit);
		}
		return List.of();
	}

	@Override
	public boolean inTransaction() {
		return this.replay != null || this.streams.inBlock() || this.assembler.inTransaction();
	}

	@Override
	public boolean hasBuffered() {
		return this.replay != null;
	}

	@Override
	public void assembleBuffered(Deque<Event> into, int maxEvents, long maxBytes) {
		Replay current = this.replay;
		if (current == null) {
			return;
		}
		int start = into.size();
		long bytes = 0;
		do {
			ByteBuffer payload = current.next();
			bytes += payload.remaining();
			into.addAll(this.assembler.assemble(payload));
		}
		while (current.hasNext() && into.size() - start < maxEvents && bytes < maxBytes);
		if (!current.hasNext()) {
			// The replay closed itself with its Commit, removing the spill file.
			this.replay = null;
			this.spill.changed();
		}
	}

	/**
	 * Drops the open streamed transactions and a replay not passed on, removing their
	 * spill files; a new session streams them again.
	 */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		this.replay = null;
		try {
			this.streams.close();
		}
		finally {
			this.spill.sessionEnded(this.streams);
		}
	}

}
