package io.postlog.decoder;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.postlog.Lsn;
import io.postlog.pgoutput.TupleData;
import io.postlog.pgoutput.TupleValue;

/**
 * Decodes one payload of {@code pglogical_output}'s native protocol (version 1) into a
 * {@link PgLogicalMessage}. Every read is bounds-checked, every flags byte must be 0 and
 * every string NUL-terminated where the protocol says so; anything else is a
 * {@link PluginDecodingException} naming the message, offset and reason. Values must be
 * text ({@code 't'}), the only kind postlog asks for. Stateless.
 */
final class PgLogicalWireDecoder {

	private static final String PLUGIN = "pglogical_output";

	/**
	 * The parameters every pglogical 2.x (2.0 to 2.4) startup message carries, in order
	 * ({@code prepare_startup_message}); the message has no length of its own, so a
	 * missing one is how a cut-off message shows.
	 */
	private static final List<String> STARTUP_PARAMETERS = List.of("max_proto_version", "min_proto_version", "coltypes",
			"pg_version_num", "pg_version", "pg_catversion", "database_encoding", "encoding",
			"forward_changeset_origins", "walsender_pid", "pglogical_version", "pglogical_version_num",
			"binary.internal_basetypes", "binary.binary_basetypes", "binary.basetypes_major_version",
			"binary.sizeof_int", "binary.sizeof_long", "binary.sizeof_datum", "binary.maxalign", "binary.bigendian",
			"binary.float4_byval", "binary.float8_byval", "binary.integer_datetimes", "binary.binary_pg_version",
			"no_txinfo");

	/** PostgreSQL's epoch, 2000-01-01, in seconds since 1970-01-01. */
	private static final long PG_EPOCH_SECONDS = 946_684_800L;

	private PgLogicalWireDecoder() {
	}

	static PgLogicalMessage decode(ByteBuffer payload) {
		Reader in = new Reader(payload);
		byte tag = in.int8("the message type");
		String what = switch (tag) {
			case 'S' -> "Startup";
			case 'B' -> "Begin";
			case 'C' -> "Commit";
			case 'O' -> "Origin";
			case 'R' -> "Relation";
			case 'I' -> "Insert";
			case 'U' -> "Update";
			case 'D' -> "Delete";
			default -> throw in.error("message", "unknown message type");
		};
		in.what = what;
		PgLogicalMessage message = switch (tag) {
			case 'S' -> startup(in);
			case 'B' -> begin(in);
			case 'C' -> commit(in);
			case 'O' -> origin(in);
			case 'R' -> relation(in);
			case 'I' -> insert(in);
			case 'U' -> update(in);
			default -> delete(in);
		};
		if (in.buffer.hasRemaining()) {
			throw in.error("the end", in.buffer.remaining() + " trailing bytes");
		}
		return message;
	}

	private static PgLogicalMessage startup(Reader in) {
		if (in.int8("the startup format") != 1) {
			throw in.error("the startup format", "only format 1 is known");
		}
		Map<String, String> parameters = new LinkedHashMap<>();
		while (in.buffer.hasRemaining()) {
			String key = in.cstring("a parameter name");
			if (parameters.put(key, in.cstring("a parameter value")) != null) {
				throw in.error("a parameter name", "repeated");
			}
		}
		for (String name : STARTUP_PARAMETERS) {
			if (!parameters.containsKey(name)) {
				throw in.error("the parameters", "parameter " + name + " is missing");
			}
		}
		return new PgLogicalMessage.Startup(parameters);
	}

	private static PgLogicalMessage begin(Reader in) {
		in.flags();
		return new PgLogicalMessage.Begin(in.lsn("the final LSN"), in.timestamp("the commit time"),
				in.uint32("the xid"));
	}

	private static PgLogicalMessage commit(Reader in) {
		in.flags();
		return new PgLogicalMessage.Commit(in.lsn("the commit LSN"), in.lsn("the end LSN"),
				in.timestamp("the commit time"));
	}

	private static PgLogicalMessage origin(Reader in) {
		in.flags();
		Lsn lsn = in.lsn("the origin LSN");
		return new PgLogicalMessage.Origin(lsn, in.shortString("the origin name"));
	}

	private static PgLogicalMessage relation(Reader in) {
		in.flags();
		int relationId = in.int32("the relation OID");
		String namespace = in.shortString("the schema");
		String name = in.shortString("the table name");
		in.block('A', "the attributes block");
		int count = in.uint16("the attribute count");
		List<PgLogicalMessage.Attribute> columns = new ArrayList<>(Math.min(count, 1664));
		for (int i = 0; i < count; i++) {
			in.block('C', "a column block");
			int flags = in.int8("the column flags") & 0xFF;
			if ((flags & ~1) != 0) {
				throw in.error("the column flags", "unknown flags");
			}
			in.block('N', "a column name block");
			int length = in.uint16("the column name length");
			columns.add(new PgLogicalMessage.Attribute(flags, in.terminated(length, "the column name")));
		}
		return new PgLogicalMessage.Relation(relationId, namespace, name, columns);
	}

	private static PgLogicalMessage insert(Reader in) {
		in.flags();
		int relationId = in.int32("the relation OID");
		in.block('N', "the new tuple marker");
		return new PgLogicalMessage.Insert(relationId, tuple(in));
	}

	private static PgLogicalMessage update(Reader in) {
		in.flags();
		int relationId = in.int32("the relation OID");
		byte marker = in.int8("the tuple marker");
		TupleData old = null;
		if (marker == 'K') {
			old = tuple(in);
			marker = in.int8("the new tuple marker");
		}
		if (marker != 'N') {
			throw in.error("the tuple marker", "expected 'K' or 'N'");
		}
		return new PgLogicalMessage.Update(relationId, old, tuple(in));
	}

	private static PgLogicalMessage delete(Reader in) {
		in.flags();
		int relationId = in.int32("the relation OID");
		in.block('K', "the old key marker");
		return new PgLogicalMessage.Delete(relationId, tuple(in));
	}

	/** {@code 'T'}, a column count, then per column {@code n}, {@code u} or {@code t}. */
	private static TupleData tuple(Reader in) {
		in.block('T', "the tuple block");
		int count = in.uint16("the column count");
		List<TupleValue> values = new ArrayList<>(Math.min(count, 1664));
		for (int i = 0; i < count; i++) {
			byte kind = in.int8("a column kind");
			switch (kind) {
				case 'n' -> values.add(TupleValue.NULL);
				case 'u' -> values.add(TupleValue.UNCHANGED_TOAST);
				case 't' -> {
					int length = in.int32("a value length");
					if (length < 1) {
						throw in.error("a value length", "a text value holds at least its NUL");
					}
					byte[] text = in.bytes(length - 1, "a text value");
					if (in.int8("a value's NUL") != 0) {
						throw in.error("a value's NUL", "a text value must end in NUL");
					}
					values.add(new TupleValue.Text(text));
				}
				case 'i', 'b' -> throw in.error("a column kind", "binary values were not asked for");
				default -> throw in.error("a column kind", "unknown column kind");
			}
		}
		return new TupleData(values);
	}

	/** Bounds-checked reads of one payload. */
	private static final class Reader {

		final ByteBuffer buffer;

		String what = "message";

		Reader(ByteBuffer buffer) {
			this.buffer = buffer;
		}

		void flags() {
			if (int8("the flags") != 0) {
				throw error("the flags", "unknown flags");
			}
		}

		void block(char expected, String field) {
			if (int8(field) != expected) {
				throw error(field, "expected '" + expected + "'");
			}
		}

		byte int8(String field) {
			need(1, field);
			return this.buffer.get();
		}

		int uint16(String field) {
			need(2, field);
			return this.buffer.getShort() & 0xFFFF;
		}

		int int32(String field) {
			need(4, field);
			return this.buffer.getInt();
		}

		long uint32(String field) {
			return int32(field) & 0xFFFFFFFFL;
		}

		Lsn lsn(String field) {
			need(8, field);
			return Lsn.of(this.buffer.getLong());
		}

		Instant timestamp(String field) {
			need(8, field);
			long micros = this.buffer.getLong();
			return Instant.ofEpochSecond(PG_EPOCH_SECONDS + Math.floorDiv(micros, 1_000_000),
					Math.floorMod(micros, 1_000_000) * 1000L);
		}

		byte[] bytes(int length, String field) {
			if (length < 0) {
				throw error(field, "negative length");
			}
			need(length, field);
			byte[] bytes = new byte[length];
			this.buffer.get(bytes);
			return bytes;
		}

		/** A one-byte length (the NUL included), then the string and its NUL. */
		String shortString(String field) {
			return terminated(int8(field) & 0xFF, field);
		}

		/** {@code length} bytes ending in NUL, the NUL included. */
		String terminated(int length, String field) {
			if (length < 1) {
				throw error(field, "a string holds at least its NUL");
			}
			byte[] bytes = bytes(length, field);
			if (bytes[length - 1] != 0) {
				throw error(field, "a string must end in NUL");
			}
			return text(bytes, length - 1, field);
		}

		/** Up to the next NUL, which is consumed. */
		String cstring(String field) {
			int start = this.buffer.position();
			int end = start;
			while (end < this.buffer.limit() && this.buffer.get(end) != 0) {
				end++;
			}
			if (end == this.buffer.limit()) {
				throw error(field, "unterminated string");
			}
			byte[] bytes = bytes(end - start + 1, field);
			return text(bytes, bytes.length - 1, field);
		}

		private String text(byte[] bytes, int length, String field) {
			try {
				return StandardCharsets.UTF_8.newDecoder()
					.onMalformedInput(CodingErrorAction.REPORT)
					.onUnmappableCharacter(CodingErrorAction.REPORT)
					.decode(ByteBuffer.wrap(bytes, 0, length))
					.toString();
			}
			catch (CharacterCodingException ex) {
				throw error(field, "not valid UTF-8");
			}
		}

		private void need(int length, String field) {
			if (this.buffer.remaining() < length) {
				throw error(field, "truncated: needs " + length + " bytes, " + this.buffer.remaining() + " left");
			}
		}

		PluginDecodingException error(String field, String reason) {
			return new PluginDecodingException(PLUGIN, this.what + " (" + field + ")", this.buffer.position(), reason);
		}

	}

}
