package io.postlog.consumer;

import java.nio.ByteBuffer;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

import io.postlog.Lsn;
import io.postlog.consumer.delivery.Event;
import io.postlog.consumer.spill.Replay;
import io.postlog.consumer.spill.StreamedTransactions;
import io.postlog.pgoutput.PgOutputDecoder;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.RowDecoder;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;

/**
 * Reads a pgoutput stream into the events {@link PgOutputAssembler} makes of it: protocol
 * 1 messages go to the assembler as they come; with streaming, stream blocks go to a
 * {@link StreamedTransactions} and each Stream Commit's replay goes to the assembler,
 * drained before the stream is read further. This is the seam the reader thread will use.
 * Also keeps every stream control message seen, for assertions on the protocol.
 */
final class StreamedEventsReader implements AutoCloseable {

	/** One id prefix for every reader, so that change ids compare across slots. */
	static final String SLOT_LABEL = "postlog";

	private final RawPgOutputStream stream;

	private final PgOutputAssembler assembler = new PgOutputAssembler(SLOT_LABEL,
			new RowDecoder(ValueDecoders.standard()), false);

	private final @Nullable StreamedTransactions streams;

	private final List<Event> events = new ArrayList<>();

	private final List<PgOutputMessage> control = new ArrayList<>();

	private final StringBuilder tags = new StringBuilder();

	private final List<long[]> blockRelations = new ArrayList<>();

	private final Consumer<Event> sink;

	StreamedEventsReader(RawPgOutputStream stream, @Nullable StreamedTransactions streams) {
		this.stream = stream;
		this.streams = streams;
		this.sink = this.events::add;
	}

	/**
	 * Creates a reader that hands each event to a sink instead of keeping it.
	 */
	StreamedEventsReader(RawPgOutputStream stream, @Nullable StreamedTransactions streams, Consumer<Event> sink) {
		this.stream = stream;
		this.streams = streams;
		this.sink = sink;
	}

	/**
	 * Reads until the sink says to stop, failing after the timeout.
	 */
	void readWhile(java.util.function.BooleanSupplier more, Duration timeout) throws SQLException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (more.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Not done within " + timeout);
			}
			byte[] payload = this.stream.read(Duration.ofMillis(100));
			if (payload != null) {
				accept(ByteBuffer.wrap(payload));
			}
		}
	}

	/**
	 * Reads until an event matches, failing after the timeout.
	 * @return the events read so far
	 */
	List<Event> readUntil(Predicate<Event> last, Duration timeout) throws SQLException {
		long deadline = System.nanoTime() + timeout.toNanos();
		int checked = 0;
		while (true) {
			for (; checked < this.events.size(); checked++) {
				if (last.test(this.events.get(checked))) {
					return this.events;
				}
			}
			if (System.nanoTime() > deadline) {
				throw new AssertionError("Not there within " + timeout + " after " + this.events.size() + " events and "
						+ this.control.size() + " stream control messages");
			}
			byte[] payload = this.stream.read(Duration.ofMillis(100));
			if (payload != null) {
				accept(ByteBuffer.wrap(payload));
			}
		}
	}

	/** Reads until a stream control message matches. */
	PgOutputMessage readUntilControl(Predicate<PgOutputMessage> wanted, Duration timeout) throws SQLException {
		long deadline = System.nanoTime() + timeout.toNanos();
		int checked = this.control.size();
		while (System.nanoTime() < deadline) {
			byte[] payload = this.stream.read(Duration.ofMillis(100));
			if (payload != null) {
				accept(ByteBuffer.wrap(payload));
			}
			for (; checked < this.control.size(); checked++) {
				if (wanted.test(this.control.get(checked))) {
					return this.control.get(checked);
				}
			}
		}
		throw new AssertionError("No such stream message within " + timeout + "; saw " + this.control);
	}

	private void accept(ByteBuffer payload) {
		StreamedTransactions streams = this.streams;
		if (streams != null && streams.inBlock()) {
			if (StreamedTransactions.isStreamStop(payload)) {
				this.tags.append('E');
				this.control.add(new PgOutputMessage.StreamStop());
				streams.stop();
			}
			else {
				byte tag = payload.get(payload.position());
				this.tags.append((char) tag);
				if (tag == 'R') {
					// xid, relation OID
					this.blockRelations.add(new long[] { payload.getInt(payload.position() + 1) & 0xFFFFFFFFL,
							payload.getInt(payload.position() + 5) & 0xFFFFFFFFL });
				}
				streams.feed(payload);
			}
			return;
		}
		byte tag = payload.get(payload.position());
		this.tags.append((char) tag);
		if (streams == null || (tag != 'S' && tag != 'c' && tag != 'A')) {
			this.assembler.assemble(payload).forEach(this.sink);
			return;
		}
		PgOutputMessage message = PgOutputDecoder.decode(payload);
		this.control.add(message);
		if (message instanceof PgOutputMessage.StreamStart start) {
			streams.start(start);
		}
		else if (message instanceof PgOutputMessage.StreamAbort abort) {
			streams.abort(abort);
		}
		else if (message instanceof PgOutputMessage.StreamCommit commit) {
			try (Replay replay = streams.commit(commit)) {
				while (replay.hasNext()) {
					this.assembler.assemble(replay.next()).forEach(this.sink);
				}
			}
		}
	}

	void acknowledge(Lsn lsn) throws SQLException {
		this.stream.acknowledge(lsn);
	}

	List<Event> events() {
		return this.events;
	}

	/** The stream control messages: Stream Start, Stop, Abort and Commit, in order. */
	List<PgOutputMessage> control() {
		return this.control;
	}

	/** The (xid, relation OID) of every Relation message inside a stream block. */
	List<long[]> blockRelations() {
		return this.blockRelations;
	}

	/** The type byte of every message read, in order. */
	String tags() {
		return this.tags.toString();
	}

	@Override
	public void close() throws SQLException {
		try {
			this.stream.close();
		}
		finally {
			if (this.streams != null) {
				this.streams.close();
			}
		}
	}

}
