package io.postlog.decoder;

import java.util.ArrayList;
import java.util.List;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.Transaction;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.RowDecoder;
import io.postlog.pgoutput.TupleData;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;

/**
 * A test-side assembler of pgoutput messages into {@link Transaction}s, as the consumer's
 * assembler does it (a change's old row: the key image, else the whole old row, else
 * none), leaving out transactions without changes, as delivery does.
 */
final class TransactionAssembler {

	private final String slot;

	private final RowDecoder rows;

	private final List<Transaction> completed = new ArrayList<>();

	private PgOutputMessage.@Nullable Begin open;

	private @Nullable String origin;

	private List<Change> changes = new ArrayList<>();

	TransactionAssembler(String slot, ValueDecoders values) {
		this.slot = slot;
		this.rows = new RowDecoder(values);
	}

	void accept(List<PgOutputMessage> messages) {
		messages.forEach(this::accept);
	}

	List<Transaction> transactions() {
		return List.copyOf(this.completed);
	}

	private void accept(PgOutputMessage message) {
		if (message instanceof PgOutputMessage.Begin begin) {
			this.open = begin;
			this.origin = null;
			this.changes = new ArrayList<>();
		}
		else if (message instanceof PgOutputMessage.Origin origin) {
			this.origin = origin.name();
		}
		else if (message instanceof PgOutputMessage.Type type) {
			this.rows.type(type);
		}
		else if (message instanceof PgOutputMessage.Relation relation) {
			this.rows.relation(relation);
		}
		else if (message instanceof PgOutputMessage.Insert insert) {
			change(Operation.INSERT, insert.relationId(), null,
					this.rows.newRow(insert.relationId(), insert.newTuple()));
		}
		else if (message instanceof PgOutputMessage.Update update) {
			change(Operation.UPDATE, update.relationId(),
					old(update.relationId(), update.keyTuple(), update.oldTuple()),
					this.rows.newRow(update.relationId(), update.newTuple()));
		}
		else if (message instanceof PgOutputMessage.Delete delete) {
			change(Operation.DELETE, delete.relationId(),
					old(delete.relationId(), delete.keyTuple(), delete.oldTuple()), null);
		}
		else if (message instanceof PgOutputMessage.Truncate truncate) {
			truncate.relationIds().forEach((relationId) -> change(Operation.TRUNCATE, relationId, null, null));
		}
		else if (message instanceof PgOutputMessage.Commit commit) {
			PgOutputMessage.Begin begin = this.open;
			if (begin == null) {
				throw new AssertionError("Commit without Begin");
			}
			if (!this.changes.isEmpty()) {
				this.completed.add(new Transaction(begin.xid(), commit.commitLsn(), commit.endLsn(),
						commit.commitTime(), this.origin, this.changes));
			}
			this.open = null;
		}
	}

	private @Nullable Row old(int relationId, @Nullable TupleData key, @Nullable TupleData old) {
		if (key != null) {
			return this.rows.oldRow(relationId, key, true);
		}
		return (old != null) ? this.rows.oldRow(relationId, old, false) : null;
	}

	private void change(Operation operation, int relationId, @Nullable Row before, @Nullable Row after) {
		PgOutputMessage.Begin begin = this.open;
		if (begin == null) {
			throw new AssertionError(operation + " outside a transaction");
		}
		int index = this.changes.size();
		Lsn commitLsn = begin.finalLsn();
		this.changes.add(new Change(operation, this.rows.table(relationId), before, after, begin.xid(), commitLsn,
				begin.commitTime(), index, Change.id(this.slot, commitLsn, index)));
	}

}
