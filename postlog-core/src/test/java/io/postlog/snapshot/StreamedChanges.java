package io.postlog.snapshot;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.pgoutput.PgOutputDecoder;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.RowDecoder;
import io.postlog.pgoutput.TupleData;
import io.postlog.test.PostgresDatabase;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.postgresql.replication.fluent.logical.ChainedLogicalStreamBuilder;

/**
 * A pgoutput stream read with pgjdbc directly and assembled into changes with their
 * transaction's commit LSN, as a consumer would; for checking what the stream delivers
 * after a snapshot. One thread.
 */
final class StreamedChanges implements AutoCloseable {

	private final Connection connection;

	private final PGReplicationStream stream;

	private final RowDecoder rows;

	private @Nullable Lsn commitLsn;

	private StreamedChanges(Connection connection, PGReplicationStream stream, ValueDecoders decoders) {
		this.connection = connection;
		this.stream = stream;
		this.rows = new RowDecoder(decoders);
	}

	/**
	 * Starts streaming a slot from its confirmed position, on a connection of its own.
	 */
	static StreamedChanges open(PostgresDatabase database, String slot, String publication, boolean binary,
			ValueDecoders decoders) throws SQLException {
		return open(database.connectReplication(), slot, publication, binary, decoders);
	}

	/**
	 * Starts streaming a slot on a given replication connection (for a temporary slot,
	 * the one that created it).
	 */
	static StreamedChanges open(Connection connection, String slot, String publication, boolean binary,
			ValueDecoders decoders) throws SQLException {
		ChainedLogicalStreamBuilder builder = connection.unwrap(PGConnection.class)
			.getReplicationAPI()
			.replicationStream()
			.logical()
			.withSlotName(slot)
			.withStartPosition(LogSequenceNumber.INVALID_LSN)
			.withSlotOption("proto_version", "1")
			.withSlotOption("publication_names", publication)
			.withStatusInterval(1, TimeUnit.SECONDS);
		if (binary) {
			builder = builder.withSlotOption("binary", "true");
		}
		return new StreamedChanges(connection, builder.start(), decoders);
	}

	/**
	 * Reads changes until one matches {@code last} (included), confirming each
	 * transaction as it ends.
	 */
	List<Streamed> readUntil(Predicate<Streamed> last, Duration timeout) throws SQLException, InterruptedException {
		List<Streamed> changes = new ArrayList<>();
		applyUntil((change) -> {
			changes.add(change);
			return last.test(change);
		}, () -> {
		}, timeout);
		return changes;
	}

	/**
	 * Hands each change to {@code apply} until it returns {@code true}, and at each
	 * commit runs {@code commit} and only then confirms the transaction to the server;
	 * returns after the commit of the transaction holding the last change.
	 */
	void applyUntil(Predicate<Streamed> apply, Runnable commit, Duration timeout)
			throws SQLException, InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		boolean last = false;
		int changes = 0;
		while (System.nanoTime() < deadline) {
			ByteBuffer payload = this.stream.readPending();
			if (payload == null) {
				Thread.sleep(5);
				continue;
			}
			PgOutputMessage message = PgOutputDecoder.decode(payload);
			if (message instanceof PgOutputMessage.Commit end) {
				commit.run();
				this.stream.setFlushedLSN(LogSequenceNumber.valueOf(end.endLsn().value()));
				this.stream.setAppliedLSN(LogSequenceNumber.valueOf(end.endLsn().value()));
				if (last) {
					this.stream.forceUpdateStatus();
					return;
				}
				continue;
			}
			Streamed change = assemble(message);
			if (change != null) {
				changes++;
				last |= apply.test(change);
			}
		}
		throw new AssertionError(
				"The stream did not deliver the last change within " + timeout + " (read " + changes + " changes)");
	}

	private @Nullable Streamed assemble(PgOutputMessage message) {
		if (message instanceof PgOutputMessage.Begin begin) {
			this.commitLsn = begin.finalLsn();
		}
		else if (message instanceof PgOutputMessage.Relation relation) {
			this.rows.relation(relation);
		}
		else if (message instanceof PgOutputMessage.Insert insert) {
			return new Streamed(Operation.INSERT, this.rows.table(insert.relationId()), null,
					this.rows.newRow(insert.relationId(), insert.newTuple()), requireCommit());
		}
		else if (message instanceof PgOutputMessage.Update update) {
			return new Streamed(Operation.UPDATE, this.rows.table(update.relationId()),
					old(update.relationId(), update.keyTuple(), update.oldTuple()),
					this.rows.newRow(update.relationId(), update.newTuple()), requireCommit());
		}
		else if (message instanceof PgOutputMessage.Delete delete) {
			return new Streamed(Operation.DELETE, this.rows.table(delete.relationId()),
					old(delete.relationId(), delete.keyTuple(), delete.oldTuple()), null, requireCommit());
		}
		return null;
	}

	private @Nullable Row old(int relationId, @Nullable TupleData key, @Nullable TupleData old) {
		if (key != null) {
			return this.rows.oldRow(relationId, key, true);
		}
		return (old != null) ? this.rows.oldRow(relationId, old, false) : null;
	}

	private Lsn requireCommit() {
		if (this.commitLsn == null) {
			throw new AssertionError("A change outside a transaction");
		}
		return this.commitLsn;
	}

	@Override
	public void close() throws SQLException {
		try {
			this.stream.close();
		}
		finally {
			this.connection.close();
		}
	}

	/** One streamed change with its transaction's commit LSN. */
	record Streamed(Operation operation, TableId table, @Nullable Row before, @Nullable Row after, Lsn commitLsn) {

	}

}
