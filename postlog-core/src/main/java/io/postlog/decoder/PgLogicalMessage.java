package io.postlog.decoder;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.postlog.Lsn;
import io.postlog.pgoutput.TupleData;
import org.jspecify.annotations.Nullable;

/**
 * One message of {@code pglogical_output}'s native protocol, version 1, as pglogical 2.x
 * writes it ({@code pglogical_proto_native.c}): a one-byte type, then a flags byte
 * (always 0) and the message's fields. Immutable.
 */
sealed interface PgLogicalMessage {

	/**
	 * Startup ({@code 'S'}): the first message of every stream, the parameters the plugin
	 * accepted as {@code key\0value\0} pairs after a format byte (1).
	 *
	 * @param parameters the parameters, in order (copied)
	 */
	record Startup(Map<String, String> parameters) implements PgLogicalMessage {

		/**
		 * Creates a startup message.
		 * @param parameters the parameters
		 */
		public Startup {
			parameters = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(parameters));
		}

	}

	/**
	 * Begin ({@code 'B'}).
	 *
	 * @param finalLsn the LSN of the commit record
	 * @param commitTime the commit time
	 * @param xid the transaction id
	 */
	record Begin(Lsn finalLsn, Instant commitTime, long xid) implements PgLogicalMessage {

	}

	/**
	 * Commit ({@code 'C'}).
	 *
	 * @param commitLsn the LSN of the commit record
	 * @param endLsn the end LSN of the transaction
	 * @param commitTime the commit time
	 */
	record Commit(Lsn commitLsn, Lsn endLsn, Instant commitTime) implements PgLogicalMessage {

	}

	/**
	 * Origin ({@code 'O'}): the transaction's replication origin, after its Begin.
	 *
	 * @param originLsn the commit LSN on the origin
	 * @param name the origin's name
	 */
	record Origin(Lsn originLsn, String name) implements PgLogicalMessage {

	}

	/**
	 * Relation ({@code 'R'}): a table's name and column names, before its first change in
	 * a stream and after the table changes; no types, no replica identity.
	 *
	 * @param relationId the table's OID
	 * @param namespace its schema
	 * @param relationName its name
	 * @param columns its columns, in order (copied)
	 */
	record Relation(int relationId, String namespace, String relationName,
			List<Attribute> columns) implements PgLogicalMessage {

		/**
		 * Creates a relation.
		 * @param relationId the OID
		 * @param namespace the schema
		 * @param relationName the name
		 * @param columns the columns
		 */
		public Relation {
			columns = List.copyOf(columns);
		}

	}

	/**
	 * One column of a {@link Relation} ({@code 'C'} then {@code 'N'} blocks).
	 *
	 * @param flags 1 when the column belongs to the replica identity index
	 * @param name the column's name
	 */
	record Attribute(int flags, String name) {

	}

	/**
	 * Insert ({@code 'I'}).
	 *
	 * @param relationId the table's OID
	 * @param newTuple the new row
	 */
	record Insert(int relationId, TupleData newTuple) implements PgLogicalMessage {

	}

	/**
	 * Update ({@code 'U'}): the old row's key ({@code 'K'}, the whole old row under
	 * {@code REPLICA IDENTITY FULL}) when the server logged one, then the new row.
	 *
	 * @param relationId the table's OID
	 * @param oldTuple the old key or row, or {@code null}
	 * @param newTuple the new row
	 */
	record Update(int relationId, @Nullable TupleData oldTuple, TupleData newTuple) implements PgLogicalMessage {

	}

	/**
	 * Delete ({@code 'D'}): the old row's key ({@code 'K'}).
	 *
	 * @param relationId the table's OID
	 * @param oldTuple the old key, or the whole old row under
	 * {@code REPLICA IDENTITY FULL}
	 */
	record Delete(int relationId, TupleData oldTuple) implements PgLogicalMessage {

	}

}
