package io.postlog.decoder;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import io.postlog.Lsn;
import org.jspecify.annotations.Nullable;

/**
 * One wal2json format-version 2 document, with the members wal2json's options put in it
 * ({@code include-xids}, {@code include-timestamp}, {@code include-origin},
 * {@code include-lsn}, {@code include-types}, {@code include-type-oids},
 * {@code include-pk}); a member the options leave out is {@code null}. Immutable.
 */
sealed interface Wal2JsonMessage {

	/**
	 * {@code {"action":"B"}}: a transaction begins.
	 *
	 * @param xid the transaction id
	 * @param timestamp the commit time
	 * @param origin the replication origin's id, 0 for none
	 * @param lsn the LSN of the commit record (the transaction's final LSN)
	 * @param nextLsn the end LSN of the transaction
	 */
	record Begin(@Nullable Long xid, @Nullable Instant timestamp, @Nullable Long origin, @Nullable Lsn lsn,
			@Nullable Lsn nextLsn) implements Wal2JsonMessage {

	}

	/**
	 * {@code {"action":"C"}}: the transaction commits.
	 *
	 * @param xid the transaction id
	 * @param timestamp the commit time
	 * @param origin the replication origin's id, 0 for none
	 * @param lsn the LSN of the commit record
	 * @param nextLsn the end LSN of the transaction
	 */
	record Commit(@Nullable Long xid, @Nullable Instant timestamp, @Nullable Long origin, @Nullable Lsn lsn,
			@Nullable Lsn nextLsn) implements Wal2JsonMessage {

	}

	/**
	 * {@code {"action":"I"|"U"|"D"}}: a row change.
	 *
	 * @param action {@code I}, {@code U} or {@code D}
	 * @param xid the transaction id
	 * @param timestamp the commit time
	 * @param origin the replication origin's id
	 * @param lsn the change's LSN
	 * @param schema the table's schema
	 * @param table the table's name
	 * @param columns the new row (inserts and updates; an unchanged TOASTed column is
	 * left out)
	 * @param identity the old row's replica identity columns (updates and deletes), or
	 * every column under {@code REPLICA IDENTITY FULL}
	 * @param pk the primary key's columns, without values
	 */
	record Change(char action, @Nullable Long xid, @Nullable Instant timestamp, @Nullable Long origin,
			@Nullable Lsn lsn, String schema, String table, @Nullable List<Column> columns,
			@Nullable List<Column> identity, @Nullable List<Column> pk) implements Wal2JsonMessage {

		/**
		 * Creates a change.
		 * @param action the action
		 * @param xid the xid
		 * @param timestamp the time
		 * @param origin the origin
		 * @param lsn the LSN
		 * @param schema the schema
		 * @param table the table
		 * @param columns the new row
		 * @param identity the old key
		 * @param pk the primary key
		 */
		public Change {
			columns = (columns != null) ? List.copyOf(columns) : null;
			identity = (identity != null) ? List.copyOf(identity) : null;
			pk = (pk != null) ? List.copyOf(pk) : null;
		}

	}

	/**
	 * {@code {"action":"T"}}: one table of a {@code TRUNCATE}.
	 *
	 * @param xid the transaction id
	 * @param timestamp the commit time
	 * @param origin the replication origin's id
	 * @param lsn the truncate's LSN
	 * @param schema the table's schema
	 * @param table the table's name
	 */
	record Truncate(@Nullable Long xid, @Nullable Instant timestamp, @Nullable Long origin, @Nullable Lsn lsn,
			String schema, String table) implements Wal2JsonMessage {

	}

	/**
	 * {@code {"action":"M"}}: a logical decoding message. wal2json copies the content up
	 * to its first NUL byte.
	 *
	 * @param xid the transaction id, {@code null} for a non-transactional message
	 * @param timestamp the commit time, {@code null} for a non-transactional message
	 * @param origin the origin, {@code null} for a non-transactional message
	 * @param lsn the message's LSN
	 * @param transactional whether it is transactional
	 * @param prefix the prefix
	 * @param content the content (owned by the record)
	 */
	record Message(@Nullable Long xid, @Nullable Instant timestamp, @Nullable Long origin, @Nullable Lsn lsn,
			boolean transactional, String prefix, byte[] content) implements Wal2JsonMessage {

		@Override
		public boolean equals(@Nullable Object other) {
			return this == other || (other instanceof Message message && Objects.equals(this.xid, message.xid)
					&& Objects.equals(this.timestamp, message.timestamp) && Objects.equals(this.origin, message.origin)
					&& Objects.equals(this.lsn, message.lsn) && this.transactional == message.transactional
					&& this.prefix.equals(message.prefix) && Arrays.equals(this.content, message.content));
		}

		@Override
		public int hashCode() {
			return Objects.hash(this.xid, this.lsn, this.prefix, Arrays.hashCode(this.content));
		}

		@Override
		public String toString() {
			return "Message[xid=" + this.xid + ", lsn=" + this.lsn + ", transactional=" + this.transactional
					+ ", prefix=" + this.prefix + ", content=" + this.content.length + " bytes]";
		}

	}

	/**
	 * One column of a change.
	 *
	 * @param name the column's name
	 * @param type the type as {@code format_type} prints it with its modifier (a domain's
	 * base type with {@code include-domain-data-type})
	 * @param typeOid the type's OID
	 * @param value the value: {@link Json.Text}, {@link Json.Numeral} (wal2json writes
	 * the integer, float and numeric types as JSON numbers), {@link Json.Bool}
	 * ({@code bool}) or {@link Json.Null}; {@code null} in a primary key list, which has
	 * no values
	 */
	record Column(String name, @Nullable String type, @Nullable Integer typeOid, Json.@Nullable Value value) {

	}

}
