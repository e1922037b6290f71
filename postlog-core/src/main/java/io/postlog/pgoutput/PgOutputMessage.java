package io.postlog.pgoutput;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import io.postlog.Lsn;
import org.jspecify.annotations.Nullable;

/**
 * One decoded message of PostgreSQL's pgoutput logical replication protocol, versions 1
 * to 4, with the field names of PostgreSQL's "Logical Replication Message Formats"
 * documentation. Immutable. Components named {@code xid} of type {@code Long} are the
 * transaction id that protocol v2+ puts in front of messages inside a streamed
 * transaction block, else {@code null}.
 */
public sealed interface PgOutputMessage {

	/**
	 * Begin ({@code 'B'}): the start of a transaction.
	 *
	 * @param finalLsn the LSN of the transaction's commit record
	 * @param commitTime the commit time
	 * @param xid the transaction id
	 */
	record Begin(Lsn finalLsn, Instant commitTime, long xid) implements PgOutputMessage {

	}

	/**
	 * Message ({@code 'M'}): a logical decoding message
	 * ({@code pg_logical_emit_message}). {@link #toString()} gives the content's length,
	 * not its bytes.
	 *
	 * @param xid the streamed transaction's id, or {@code null}
	 * @param transactional whether the message is transactional (flags bit 1)
	 * @param lsn the LSN of the message
	 * @param prefix the prefix
	 * @param content the content, owned by this record
	 */
	record Message(@Nullable Long xid, boolean transactional, Lsn lsn, String prefix,
			byte[] content) implements PgOutputMessage {

		@Override
		public boolean equals(@Nullable Object other) {
			return this == other || (other instanceof Message message && Objects.equals(this.xid, message.xid)
					&& this.transactional == message.transactional && this.lsn.equals(message.lsn)
					&& this.prefix.equals(message.prefix) && Arrays.equals(this.content, message.content));
		}

		@Override
		public int hashCode() {
			return Objects.hash(this.xid, this.transactional, this.lsn, this.prefix, Arrays.hashCode(this.content));
		}

		@Override
		public String toString() {
			return "Message[xid=" + this.xid + ", transactional=" + this.transactional + ", lsn=" + this.lsn
					+ ", prefix=" + this.prefix + ", content=" + this.content.length + " bytes]";
		}

	}

	/**
	 * Commit ({@code 'C'}): the end of a transaction.
	 *
	 * @param flags the flags (currently unused, 0)
	 * @param commitLsn the LSN of the commit record
	 * @param endLsn the end LSN of the transaction
	 * @param commitTime the commit time
	 */
	record Commit(int flags, Lsn commitLsn, Lsn endLsn, Instant commitTime) implements PgOutputMessage {

	}

	/**
	 * Origin ({@code 'O'}): the replication origin of the transaction.
	 *
	 * @param commitLsn the LSN of the commit on the origin server
	 * @param name the origin's name
	 */
	record Origin(Lsn commitLsn, String name) implements PgOutputMessage {

	}

	/**
	 * Relation ({@code 'R'}): a table's definition, sent before its first change in a
	 * session and again after it changes.
	 *
	 * @param xid the streamed transaction's id, or {@code null}
	 * @param relationId the table's OID
	 * @param namespace the schema ({@code pg_catalog} is sent as an empty string)
	 * @param relationName the table name
	 * @param replicaIdentity the replica identity setting ({@code relreplident}:
	 * {@code d} default, {@code n} nothing, {@code f} full, {@code i} index)
	 * @param columns the published columns in table order
	 */
	record Relation(@Nullable Long xid, int relationId, String namespace, String relationName, char replicaIdentity,
			List<Column> columns) implements PgOutputMessage {

		/**
		 * Creates a relation.
		 * @param xid the streamed transaction's id or {@code null}
		 * @param relationId the OID
		 * @param namespace the schema
		 * @param relationName the name
		 * @param replicaIdentity the replica identity
		 * @param columns the columns
		 */
		public Relation {
			columns = List.copyOf(columns);
		}

	}

	/**
	 * One column of a {@link Relation}.
	 *
	 * @param flags the flags: 1 marks a column that is part of the key
	 * @param name the column name
	 * @param typeOid the OID of the column's data type
	 * @param typeModifier the type modifier ({@code atttypmod})
	 */
	record Column(int flags, String name, int typeOid, int typeModifier) {

		/**
		 * Returns whether the column is part of the replica identity key.
		 * @return {@code true} for key columns
		 */
		public boolean isKey() {
			return (this.flags & 1) != 0;
		}

	}

	/**
	 * Type ({@code 'Y'}): a non-built-in data type used by a following Relation.
	 *
	 * @param xid the streamed transaction's id, or {@code null}
	 * @param typeOid the type's OID
	 * @param namespace the type's schema ({@code pg_catalog} is sent as an empty string)
	 * @param name the type's name
	 */
	record Type(@Nullable Long xid, int typeOid, String namespace, String name) implements PgOutputMessage {

	}

	/**
	 * Insert ({@code 'I'}).
	 *
	 * @param xid the streamed transaction's id, or {@code null}
	 * @param relationId the table's OID
	 * @param newTuple the new row
	 */
	record Insert(@Nullable Long xid, int relationId, TupleData newTuple) implements PgOutputMessage {

	}

	/**
	 * Update ({@code 'U'}). At most one of the old images is present: {@code keyTuple}
	 * ({@code 'K'}) when a replica identity column changed, {@code oldTuple}
	 * ({@code 'O'}) under {@code REPLICA IDENTITY FULL}.
	 *
	 * @param xid the streamed transaction's id, or {@code null}
	 * @param relationId the table's OID
	 * @param keyTuple the old key columns ({@code 'K'}), or {@code null}
	 * @param oldTuple the whole old row ({@code 'O'}), or {@code null}
	 * @param newTuple the new row
	 */
	record Update(@Nullable Long xid, int relationId, @Nullable TupleData keyTuple, @Nullable TupleData oldTuple,
			TupleData newTuple) implements PgOutputMessage {

	}

	/**
	 * Delete ({@code 'D'}). Exactly one of the old images is present.
	 *
	 * @param xid the streamed transaction's id, or {@code null}
	 * @param relationId the table's OID
	 * @param keyTuple the old key columns ({@code 'K'}), or {@code null}
	 * @param oldTuple the whole old row ({@code 'O'}), or {@code null}
	 */
	record Delete(@Nullable Long xid, int relationId, @Nullable TupleData keyTuple,
			@Nullable TupleData oldTuple) implements PgOutputMessage {

	}

	/**
	 * Truncate ({@code 'T'}).
	 *
	 * @param xid the streamed transaction's id, or {@code null}
	 * @param options the option bits: 1 {@code CASCADE}, 2 {@code RESTART IDENTITY}
	 * @param relationIds the OIDs of the truncated tables
	 */
	record Truncate(@Nullable Long xid, int options, List<Integer> relationIds) implements PgOutputMessage {

		/**
		 * Creates a truncate message.
		 * @param xid the streamed transaction's id or {@code null}
		 * @param options the options
		 * @param relationIds the tables
		 */
		public Truncate {
			relationIds = List.copyOf(relationIds);
		}

	}

	/**
	 * Stream Start ({@code 'S'}, protocol v2+): a block of a streamed transaction begins.
	 *
	 * @param xid the transaction id
	 * @param firstSegment whether this is the transaction's first block
	 */
	record StreamStart(long xid, boolean firstSegment) implements PgOutputMessage {

	}

	/**
	 * Stream Stop ({@code 'E'}, protocol v2+): a block of a streamed transaction ends.
	 */
	record StreamStop() implements PgOutputMessage {

	}

	/**
	 * Stream Commit ({@code 'c'}, protocol v2+).
	 *
	 * @param xid the transaction id
	 * @param flags the flags (0)
	 * @param commitLsn the LSN of the commit record
	 * @param endLsn the end LSN of the transaction
	 * @param commitTime the commit time
	 */
	record StreamCommit(long xid, int flags, Lsn commitLsn, Lsn endLsn, Instant commitTime) implements PgOutputMessage {

	}

	/**
	 * Stream Abort ({@code 'A'}, protocol v2+). Protocol v4 with parallel streaming adds
	 * the abort's LSN and time.
	 *
	 * @param xid the transaction id
	 * @param subXid the id of the aborted (sub)transaction
	 * @param abortLsn the abort's LSN (v4 parallel), or {@code null}
	 * @param abortTime the abort's time (v4 parallel), or {@code null}
	 */
	record StreamAbort(long xid, long subXid, @Nullable Lsn abortLsn,
			@Nullable Instant abortTime) implements PgOutputMessage {

	}

	/**
	 * Begin Prepare ({@code 'b'}, protocol v3+).
	 *
	 * @param prepareLsn the LSN of the prepare
	 * @param endLsn the end LSN of the prepared transaction
	 * @param prepareTime the prepare time
	 * @param xid the transaction id
	 * @param gid the global transaction identifier
	 */
	record BeginPrepare(Lsn prepareLsn, Lsn endLsn, Instant prepareTime, long xid,
			String gid) implements PgOutputMessage {

	}

	/**
	 * Prepare ({@code 'P'}, protocol v3+).
	 *
	 * @param flags the flags (0)
	 * @param prepareLsn the LSN of the prepare
	 * @param endLsn the end LSN of the prepared transaction
	 * @param prepareTime the prepare time
	 * @param xid the transaction id
	 * @param gid the global transaction identifier
	 */
	record Prepare(int flags, Lsn prepareLsn, Lsn endLsn, Instant prepareTime, long xid,
			String gid) implements PgOutputMessage {

	}

	/**
	 * Commit Prepared ({@code 'K'}, protocol v3+).
	 *
	 * @param flags the flags (0)
	 * @param commitLsn the LSN of the commit prepared
	 * @param endLsn the end LSN of the commit prepared transaction
	 * @param commitTime the commit time
	 * @param xid the transaction id
	 * @param gid the global transaction identifier
	 */
	record CommitPrepared(int flags, Lsn commitLsn, Lsn endLsn, Instant commitTime, long xid,
			String gid) implements PgOutputMessage {

	}

	/**
	 * Rollback Prepared ({@code 'r'}, protocol v3+).
	 *
	 * @param flags the flags (0)
	 * @param prepareEndLsn the end LSN of the prepared transaction
	 * @param rollbackEndLsn the end LSN of the rollback prepared transaction
	 * @param prepareTime the prepare time
	 * @param rollbackTime the rollback time
	 * @param xid the transaction id
	 * @param gid the global transaction identifier
	 */
	record RollbackPrepared(int flags, Lsn prepareEndLsn, Lsn rollbackEndLsn, Instant prepareTime, Instant rollbackTime,
			long xid, String gid) implements PgOutputMessage {

	}

	/**
	 * Stream Prepare ({@code 'p'}, protocol v3+).
	 *
	 * @param flags the flags (0)
	 * @param prepareLsn the LSN of the prepare
	 * @param endLsn the end LSN of the prepared transaction
	 * @param prepareTime the prepare time
	 * @param xid the transaction id
	 * @param gid the global transaction identifier
	 */
	record StreamPrepare(int flags, Lsn prepareLsn, Lsn endLsn, Instant prepareTime, long xid,
			String gid) implements PgOutputMessage {

	}

}
