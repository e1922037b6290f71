package io.postlog.pgoutput;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Decodes single pgoutput messages (protocol versions 1 to 4) into
 * {@link PgOutputMessage} records. Stateless and thread-safe; it never keeps a reference
 * to the buffer it reads, so callers may reuse it. Any malformed input, whatever its
 * bytes, raises {@link PgOutputDecodingException} and nothing else.
 */
public final class PgOutputDecoder {

	private PgOutputDecoder() {
	}

	/**
	 * Decodes one message sent outside a streamed-transaction block. The bytes from the
	 * buffer's position to its limit must be exactly one message; the buffer's position,
	 * limit and byte order are left unchanged.
	 * @param buffer the message
	 * @return the decoded message
	 * @throws PgOutputDecodingException if the bytes are not one well-formed message
	 */
	public static PgOutputMessage decode(ByteBuffer buffer) {
		return decode(buffer, false);
	}

	/**
	 * Decodes one message. Between Stream Start and Stream Stop, protocol v2+ puts the
	 * transaction id in front of Relation, Type, Insert, Update, Delete, Truncate and
	 * Message, so {@code inStreamBlock} says whether to read it. The bytes from the
	 * buffer's position to its limit must be exactly one message; the buffer's position,
	 * limit and byte order are left unchanged.
	 * @param buffer the message
	 * @param inStreamBlock whether the message arrived between Stream Start and Stream
	 * Stop
	 * @return the decoded message
	 * @throws PgOutputDecodingException if the bytes are not one well-formed message
	 */
	public static PgOutputMessage decode(ByteBuffer buffer, boolean inStreamBlock) {
		return decode(WireReader.over(buffer, false), inStreamBlock);
	}

	/**
	 * Decodes one message as {@link #decode(ByteBuffer, boolean)} does, without copying:
	 * the tuple values of the message returned are slices of the buffer's array (when it
	 * has one), so the caller must leave those bytes as they are while it uses the
	 * message. For buffers that hold a fresh array per message, as pgjdbc's replication
	 * stream hands them out; the buffer's position, limit and byte order are left
	 * unchanged.
	 * @param buffer the message
	 * @param inStreamBlock whether the message arrived between Stream Start and Stream
	 * Stop
	 * @return the decoded message
	 * @throws PgOutputDecodingException if the bytes are not one well-formed message
	 */
	public static PgOutputMessage decodeRetaining(ByteBuffer buffer, boolean inStreamBlock) {
		WireReader reader = WireReader.over(buffer, true);
		try {
			return decode(reader, inStreamBlock);
		}
		finally {
			reader.release();
		}
	}

	private static PgOutputMessage decode(WireReader reader, boolean inStreamBlock) {
		if (reader.remaining() == 0) {
			throw reader.error("no bytes");
		}
		int code = reader.uint8("the message type");
		reader.messageType((char) code);
		MessageTag tag = MessageTag.of(code);
		if (tag == null) {
			throw reader.errorAt(0, "unknown message type");
		}
		PgOutputMessage message = decode(tag, reader, inStreamBlock);
		reader.end();
		return message;
	}

	private static PgOutputMessage decode(MessageTag tag, WireReader reader, boolean inStreamBlock) {
		return switch (tag) {
			case BEGIN -> new PgOutputMessage.Begin(reader.lsn("the final LSN"), reader.timestamp("the commit time"),
					reader.uint32("the xid"));
			case MESSAGE -> message(reader, streamXid(reader, inStreamBlock));
			case COMMIT -> new PgOutputMessage.Commit(reader.uint8("the flags"), reader.lsn("the commit LSN"),
					reader.lsn("the end LSN"), reader.timestamp("the commit time"));
			case ORIGIN ->
				new PgOutputMessage.Origin(reader.lsn("the origin's commit LSN"), reader.string("the origin name"));
			case RELATION -> relation(reader, streamXid(reader, inStreamBlock));
			case TYPE -> new PgOutputMessage.Type(streamXid(reader, inStreamBlock), reader.int32("the type OID"),
					reader.string("the namespace"), reader.string("the type name"));
			case INSERT -> insert(reader, streamXid(reader, inStreamBlock));
			case UPDATE -> update(reader, streamXid(reader, inStreamBlock));
			case DELETE -> delete(reader, streamXid(reader, inStreamBlock));
			case TRUNCATE -> truncate(reader, streamXid(reader, inStreamBlock));
			case STREAM_START ->
				new PgOutputMessage.StreamStart(reader.uint32("the xid"), flag(reader, "the first-segment flag"));
			case STREAM_STOP -> new PgOutputMessage.StreamStop();
			case STREAM_COMMIT -> new PgOutputMessage.StreamCommit(reader.uint32("the xid"), reader.uint8("the flags"),
					reader.lsn("the commit LSN"), reader.lsn("the end LSN"), reader.timestamp("the commit time"));
			case STREAM_ABORT -> streamAbort(reader);
			case BEGIN_PREPARE ->
				new PgOutputMessage.BeginPrepare(reader.lsn("the prepare LSN"), reader.lsn("the end LSN"),
						reader.timestamp("the prepare time"), reader.uint32("the xid"), reader.string("the GID"));
			case PREPARE -> new PgOutputMessage.Prepare(reader.uint8("the flags"), reader.lsn("the prepare LSN"),
					reader.lsn("the end LSN"), reader.timestamp("the prepare time"), reader.uint32("the xid"),
					reader.string("the GID"));
			case COMMIT_PREPARED -> new PgOutputMessage.CommitPrepared(reader.uint8("the flags"),
					reader.lsn("the commit LSN"), reader.lsn("the end LSN"), reader.timestamp("the commit time"),
					reader.uint32("the xid"), reader.string("the GID"));
			case ROLLBACK_PREPARED ->
				new PgOutputMessage.RollbackPrepared(reader.uint8("the flags"), reader.lsn("the prepare end LSN"),
						reader.lsn("the rollback end LSN"), reader.timestamp("the prepare time"),
						reader.timestamp("the rollback time"), reader.uint32("the xid"), reader.string("the GID"));
			case STREAM_PREPARE -> new PgOutputMessage.StreamPrepare(reader.uint8("the flags"),
					reader.lsn("the prepare LSN"), reader.lsn("the end LSN"), reader.timestamp("the prepare time"),
					reader.uint32("the xid"), reader.string("the GID"));
		};
	}

	private static boolean flag(WireReader reader, String what) {
		int offset = reader.offset();
		int value = reader.uint8(what);
		if (value > 1) {
			throw reader.errorAt(offset, what + " is " + value + ", not 0 or 1");
		}
		return value == 1;
	}

	private static @Nullable Long streamXid(WireReader reader, boolean inStreamBlock) {
		return inStreamBlock ? reader.uint32("the streamed transaction's xid") : null;
	}

	private static PgOutputMessage.Message message(WireReader reader, @Nullable Long xid) {
		int flagsOffset = reader.offset();
		int flags = reader.uint8("the flags");
		if ((flags & ~1) != 0) {
			throw reader.errorAt(flagsOffset, "unknown flags " + flags);
		}
		return new PgOutputMessage.Message(xid, flags == 1, reader.lsn("the message LSN"), reader.string("the prefix"),
				reader.bytes("the content"));
	}

	private static PgOutputMessage.Relation relation(WireReader reader, @Nullable Long xid) {
		int relationId = reader.int32("the relation OID");
		String namespace = reader.string("the namespace");
		String relationName = reader.string("the relation name");
		char replicaIdentity = (char) reader.uint8("the replica identity");
		int countOffset = reader.offset();
		// flags, an empty name's NUL, type OID and type modifier
		int count = reader.count(reader.uint16("the column count"), countOffset, 10, "column count");
		List<PgOutputMessage.Column> columns = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			columns.add(new PgOutputMessage.Column(reader.uint8("a column's flags"), reader.string("a column name"),
					reader.int32("a column's type OID"), reader.int32("a column's type modifier")));
		}
		return new PgOutputMessage.Relation(xid, relationId, namespace, relationName, replicaIdentity, columns);
	}

	private static PgOutputMessage.Insert insert(WireReader reader, @Nullable Long xid) {
		int relationId = reader.int32("the relation OID");
		expectKind(reader, 'N');
		return new PgOutputMessage.Insert(xid, relationId, tuple(reader));
	}

	private static PgOutputMessage.Update update(WireReader reader, @Nullable Long xid) {
		int relationId = reader.int32("the relation OID");
		int kindOffset = reader.offset();
		int kind = reader.uint8("the tuple kind");
		TupleData keyTuple = null;
		TupleData oldTuple = null;
		if (kind == 'K' || kind == 'O') {
			TupleData old = tuple(reader);
			if (kind == 'K') {
				keyTuple = old;
			}
			else {
				oldTuple = old;
			}
			expectKind(reader, 'N');
		}
		else if (kind != 'N') {
			throw reader.errorAt(kindOffset, unknownKind(kind, "'K', 'O' or 'N'"));
		}
		return new PgOutputMessage.Update(xid, relationId, keyTuple, oldTuple, tuple(reader));
	}

	private static PgOutputMessage.Delete delete(WireReader reader, @Nullable Long xid) {
		int relationId = reader.int32("the relation OID");
		int kindOffset = reader.offset();
		int kind = reader.uint8("the tuple kind");
		if (kind == 'K') {
			return new PgOutputMessage.Delete(xid, relationId, tuple(reader), null);
		}
		if (kind == 'O') {
			return new PgOutputMessage.Delete(xid, relationId, null, tuple(reader));
		}
		throw reader.errorAt(kindOffset, unknownKind(kind, "'K' or 'O'"));
	}

	private static void expectKind(WireReader reader, char expected) {
		int kindOffset = reader.offset();
		int kind = reader.uint8("the tuple kind");
		if (kind != expected) {
			throw reader.errorAt(kindOffset, unknownKind(kind, "'" + expected + "'"));
		}
	}

	private static String unknownKind(int kind, String expected) {
		return "tuple kind 0x" + Integer.toHexString(kind) + " where " + expected + " belongs";
	}

	private static TupleData tuple(WireReader reader) {
		int countOffset = reader.offset();
		int count = reader.count(reader.uint16("the column count"), countOffset, 1, "column count");
		long[] cells = new long[count];
		for (int i = 0; i < count; i++) {
			int kindOffset = reader.offset();
			int kind = reader.uint8("a column's value kind");
			cells[i] = switch (kind) {
				case 'n' -> TupleData.nullCell();
				case 'u' -> TupleData.unchangedToastCell();
				case 't' -> TupleData.cell(false, reader.value("a text value"), reader.lastLength());
				case 'b' -> TupleData.cell(true, reader.value("a binary value"), reader.lastLength());
				default -> throw reader.errorAt(kindOffset,
						"value kind 0x" + Integer.toHexString(kind) + " of column " + (i + 1) + " is unknown");
			};
		}
		return TupleData.of(reader.array(), cells);
	}

	private static PgOutputMessage.Truncate truncate(WireReader reader, @Nullable Long xid) {
		int countOffset = reader.offset();
		int rawCount = reader.int32("the relation count");
		int options = reader.uint8("the options");
		int count = reader.count(rawCount, countOffset, 4, "relation count");
		List<Integer> relationIds = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			relationIds.add(reader.int32("a relation OID"));
		}
		return new PgOutputMessage.Truncate(xid, options, relationIds);
	}

	private static PgOutputMessage.StreamAbort streamAbort(WireReader reader) {
		long xid = reader.uint32("the xid");
		long subXid = reader.uint32("the subtransaction xid");
		// Only protocol v4 with parallel streaming sends the abort's LSN and time; the
		// message's length is the only way to tell.
		if (reader.remaining() == 0) {
			return new PgOutputMessage.StreamAbort(xid, subXid, null, null);
		}
		return new PgOutputMessage.StreamAbort(xid, subXid, reader.lsn("the abort LSN"),
				reader.timestamp("the abort time"));
	}

}
