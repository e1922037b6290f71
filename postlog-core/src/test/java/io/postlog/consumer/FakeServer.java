package io.postlog.consumer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.admin.ConnectionLostException;
import io.postlog.admin.SlotInUseException;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.PgOutputWriter;
import io.postlog.pgoutput.TupleData;
import io.postlog.pgoutput.TupleValue;
import io.postlog.stream.LogicalStream;
import io.postlog.stream.LogicalStreamFactory;
import io.postlog.stream.StreamRequest;
import org.jspecify.annotations.Nullable;

/**
 * Plays a walsender for one slot: keeps committed transactions as pgoutput bytes, and
 * each stream it opens serves those past the slot's confirmed position (which moves only
 * when a status update reports an acknowledged position), then whatever is committed
 * later.
 */
final class FakeServer implements LogicalStreamFactory {

	static final int RELATION_ID = 16384;

	static final Instant TIME = Instant.parse("2024-01-02T03:04:05Z");

	private final List<Tx> wal = new ArrayList<>();

	private long nextLsn = 0x1000;

	private int nextXid = 700;

	private volatile Lsn confirmed = Lsn.INVALID;

	private volatile @Nullable Stream current;

	final AtomicInteger opens = new AtomicInteger();

	final AtomicInteger slotInUseOpens = new AtomicInteger();

	volatile @Nullable StreamRequest lastRequest;

	/**
	 * Commits a transaction of inserts into {@code public.items(id int, note text)}.
	 * @param ids the ids inserted
	 * @return the transaction's end LSN
	 */
	synchronized Tx commitInserts(int... ids) {
		List<PgOutputMessage> messages = new ArrayList<>();
		for (int id : ids) {
			messages.add(new PgOutputMessage.Insert(null, RELATION_ID, row(id, "note " + id)));
		}
		return commit(messages);
	}

	synchronized Tx commit(List<PgOutputMessage> body) {
		long xid = this.nextXid++;
		Lsn commitLsn = Lsn.of(this.nextLsn + 0x100 * (body.size() + 1));
		Lsn endLsn = Lsn.of(commitLsn.value() + 0x30);
		this.nextLsn = endLsn.value() + 0x10;
		List<byte[]> payloads = new ArrayList<>();
		payloads.add(PgOutputWriter.write(new PgOutputMessage.Begin(commitLsn, TIME, xid)));
		payloads.add(PgOutputWriter.write(relation()));
		for (PgOutputMessage message : body) {
			payloads.add(PgOutputWriter.write(message));
		}
		payloads.add(PgOutputWriter.write(new PgOutputMessage.Commit(0, commitLsn, endLsn, TIME)));
		Tx tx = new Tx(xid, commitLsn, endLsn, payloads);
		this.wal.add(tx);
		Stream stream = this.current;
		if (stream != null) {
			stream.serve(tx);
		}
		return tx;
	}

	/**
	 * Sends raw payloads as they are, outside any bookkeeping.
	 * @param payload the bytes
	 */
	void sendRaw(byte[] payload) {
		Stream stream = this.current;
		if (stream != null) {
			stream.payloads.add(new Payload(payload, null));
		}
	}

	void keepalive(Lsn lsn) {
		this.nextLsn = Math.max(this.nextLsn, lsn.value());
		Stream stream = this.current;
		if (stream != null) {
			stream.keepalive = lsn;
		}
	}

	void dropConnection() {
		Stream stream = this.current;
		if (stream != null) {
			stream.broken = true;
		}
	}

	static TupleData row(int id, String note) {
		return new TupleData(List.of(new TupleValue.Text(String.valueOf(id).getBytes(StandardCharsets.UTF_8)),
				new TupleValue.Text(note.getBytes(StandardCharsets.UTF_8))));
	}

	static PgOutputMessage.Relation relation() {
		return new PgOutputMessage.Relation(null, RELATION_ID, "public", "items", 'd',
				List.of(new PgOutputMessage.Column(1, "id", 23, -1), new PgOutputMessage.Column(0, "note", 25, -1)));
	}

	Lsn confirmed() {
		return this.confirmed;
	}

	@Nullable Stream current() {
		return this.current;
	}

	@Override
	public synchronized LogicalStream open(StreamRequest request) {
		this.opens.incrementAndGet();
		this.lastRequest = request;
		if (this.slotInUseOpens.getAndUpdate((n) -> Math.max(0, n - 1)) > 0) {
			throw new SlotInUseException(request.slotName(), 1,
					new SQLException("replication slot \"x\" is active for PID 1", "55006"));
		}
		Stream previous = this.current;
		if (previous != null && !previous.closed) {
			throw new IllegalStateException("A stream is still open");
		}
		Stream stream = new Stream();
		// Like the server: from the requested start or the confirmed position, whichever
		// is later.
		Lsn start = request.startLsn().isAfter(this.confirmed) ? request.startLsn() : this.confirmed;
		for (Tx tx : this.wal) {
			if (tx.endLsn().isAfter(start)) {
				stream.serve(tx);
			}
		}
		this.current = stream;
		return stream;
	}

	record Tx(long xid, Lsn commitLsn, Lsn endLsn, List<byte[]> payloads) {

	}

	private record Payload(byte[] bytes, @Nullable Lsn endLsn) {

	}

	final class Stream implements LogicalStream {

		private final BlockingQueue<Payload> payloads = new LinkedBlockingQueue<>();

		final AtomicInteger reads = new AtomicInteger();

		final AtomicInteger statusUpdates = new AtomicInteger();

		volatile Lsn acknowledged = Lsn.INVALID;

		volatile Lsn received = Lsn.INVALID;

		volatile Lsn keepalive = Lsn.INVALID;

		volatile boolean closed;

		volatile boolean broken;

		void serve(Tx tx) {
			for (int i = 0; i < tx.payloads().size(); i++) {
				boolean last = i == tx.payloads().size() - 1;
				this.payloads.add(new Payload(tx.payloads().get(i), last ? tx.endLsn() : null));
			}
		}

		int pending() {
			return this.payloads.size();
		}

		@Override
		public @Nullable ByteBuffer read(Duration timeout) {
			check();
			this.reads.incrementAndGet();
			try {
				Payload payload = this.payloads.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
				if (payload == null) {
					return null;
				}
				if (payload.endLsn() != null) {
					this.received = payload.endLsn();
				}
				return ByteBuffer.wrap(payload.bytes());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return null;
			}
		}

		@Override
		public Lsn lastReceiveLsn() {
			return this.keepalive.isAfter(this.received) ? this.keepalive : this.received;
		}

		@Override
		public void acknowledge(Lsn lsn) {
			if (lsn.isAfter(this.acknowledged)) {
				this.acknowledged = lsn;
			}
		}

		@Override
		public void sendStatus() {
			check();
			this.statusUpdates.incrementAndGet();
			if (this.acknowledged.isAfter(FakeServer.this.confirmed)) {
				FakeServer.this.confirmed = this.acknowledged;
			}
		}

		private void check() {
			if (this.broken) {
				throw new ConnectionLostException("Connection is broken", null);
			}
			if (this.closed) {
				throw new PostlogException("Stream is closed");
			}
		}

		@Override
		public void abort() {
			this.broken = true;
		}

		@Override
		public void close() {
			this.closed = true;
		}

	}

}
