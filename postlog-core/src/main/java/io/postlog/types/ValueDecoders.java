package io.postlog.types;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.postlog.types.DateTimeDecoders.IntervalDecoder;
import io.postlog.types.FormattedDecoders.Bits;
import io.postlog.types.FormattedDecoders.Inet;
import io.postlog.types.FormattedDecoders.MacAddr;
import io.postlog.types.FormattedDecoders.Money;
import io.postlog.types.TextDecoders.Raw;
import io.postlog.types.TextDecoders.Text;
import org.jspecify.annotations.Nullable;

/**
 * Decodes column values by type OID, in text and binary format, to the Java types of
 * postlog's value table; both formats give equal values for the same server value.
 * Immutable and thread-safe: {@link #withDecoder} and {@link #withLookup} return new
 * instances. A type's decoder is, in this order, the one registered for its OID, the
 * built-in one, the one the {@link TypeLookup} finds (asked once per OID, then cached),
 * or else the raw decoder ({@code String} for text, {@code byte[]} for binary).
 */
public final class ValueDecoders {

	/** Built-in OIDs are all below this, so they are found by array index. */
	private static final int TABLE_SIZE = 4096;

	private static final ValueDecoders STANDARD = new ValueDecoders(builtins(), Map.of(), null);

	private final ValueDecoder[] table;

	private final Map<Integer, ValueDecoder> registered;

	private final @Nullable TypeLookup lookup;

	private final Map<Integer, ValueDecoder> lookedUp = new ConcurrentHashMap<>();

	private ValueDecoders(ValueDecoder[] table, Map<Integer, ValueDecoder> registered, @Nullable TypeLookup lookup) {
		this.table = table;
		this.registered = registered;
		this.lookup = lookup;
	}

	/**
	 * Returns the decoders of the built-in types, without a lookup.
	 * @return the standard decoders
	 */
	public static ValueDecoders standard() {
		return STANDARD;
	}

	/**
	 * Returns decoders that decode a type with a decoder of your own, overriding a
	 * built-in one for the same OID.
	 * @param typeOid the type's OID
	 * @param decoder the decoder; it must be thread-safe
	 * @return new decoders
	 */
	public ValueDecoders withDecoder(int typeOid, ValueDecoder decoder) {
		if (isTableOid(typeOid)) {
			ValueDecoder[] table = this.table.clone();
			table[typeOid] = decoder;
			return new ValueDecoders(table, this.registered, this.lookup);
		}
		Map<Integer, ValueDecoder> registered = new HashMap<>(this.registered);
		registered.put(typeOid, decoder);
		return new ValueDecoders(this.table, Map.copyOf(registered), this.lookup);
	}

	/**
	 * Returns decoders that ask a lookup about types that are neither built in nor
	 * registered, replacing any previous lookup.
	 * @param lookup the lookup; it must be thread-safe
	 * @return new decoders
	 */
	public ValueDecoders withLookup(TypeLookup lookup) {
		return new ValueDecoders(this.table, this.registered, lookup);
	}

	/**
	 * Returns the decoder of a type: registered, built-in, looked up, or else raw.
	 * @param typeOid the type's OID
	 * @return the decoder, never {@code null}
	 */
	public ValueDecoder decoderFor(int typeOid) {
		ValueDecoder decoder = isTableOid(typeOid) ? this.table[typeOid] : this.registered.get(typeOid);
		if (decoder != null) {
			return decoder;
		}
		if (this.lookup == null) {
			return Raw.INSTANCE;
		}
		decoder = this.lookedUp.get(typeOid);
		if (decoder != null) {
			return decoder;
		}
		// Not computeIfAbsent: a lookup may call decoderFor for other OIDs (a domain's
		// base type, an array's element), which a recursive computeIfAbsent forbids.
		decoder = this.lookup.lookup(typeOid, this);
		if (decoder == null) {
			decoder = Raw.INSTANCE;
		}
		ValueDecoder previous = this.lookedUp.putIfAbsent(typeOid, decoder);
		return (previous != null) ? previous : decoder;
	}

	/**
	 * Returns whether a decoder is the raw one {@link #decoderFor} falls back to for
	 * types it cannot resolve.
	 */
	static boolean isRaw(ValueDecoder decoder) {
		return decoder == Raw.INSTANCE;
	}

	/**
	 * Returns a decoder of one-dimensional and nested arrays whose elements the given
	 * decoder decodes, for a {@link TypeLookup} to return for array types.
	 * @param arrayTypeOid the array type's OID, named in errors
	 * @param elementDecoder the decoder of the elements
	 * @return the array decoder, giving {@code List<Object>}
	 */
	public ValueDecoder arrayOf(int arrayTypeOid, ValueDecoder elementDecoder) {
		return new ArrayDecoder(arrayTypeOid, elementDecoder);
	}

	/**
	 * Decodes a value in text format.
	 * @param typeOid the value's type OID
	 * @param utf8 the UTF-8 text output
	 * @return the Java value
	 * @throws ValueDecodingException if the text is malformed
	 */
	public @Nullable Object decodeText(int typeOid, byte[] utf8) {
		ValueDecoder decoder = decoderFor(typeOid);
		try {
			return decoder.decodeText(utf8);
		}
		catch (ValueDecodingException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			throw failed(typeOid, decoder, ex);
		}
	}

	/**
	 * Decodes a value in binary format.
	 * @param typeOid the value's type OID
	 * @param value the bytes of the type's send function
	 * @return the Java value
	 * @throws ValueDecodingException if the bytes are malformed
	 */
	public @Nullable Object decodeBinary(int typeOid, byte[] value) {
		ValueDecoder decoder = decoderFor(typeOid);
		try {
			return decoder.decodeBinary(value);
		}
		catch (ValueDecodingException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			throw failed(typeOid, decoder, ex);
		}
	}

	/**
	 * Wraps the failure of a decoder that is not postlog's own, dropping the cause, whose
	 * message may quote the value.
	 */
	static ValueDecodingException failed(int typeOid, ValueDecoder decoder, RuntimeException ex) {
		return new ValueDecodingException(typeOid,
				decoder.getClass().getName() + " failed with " + ex.getClass().getName());
	}

	private static boolean isTableOid(int typeOid) {
		return typeOid >= 0 && typeOid < TABLE_SIZE;
	}

	private static ValueDecoder[] builtins() {
		ValueDecoder[] table = new ValueDecoder[TABLE_SIZE];
		scalar(table, PgType.BOOL, PgType.BOOL_ARRAY, new NumberDecoders.Bool());
		scalar(table, PgType.INT2, PgType.INT2_ARRAY, new NumberDecoders.Int2());
		scalar(table, PgType.INT4, PgType.INT4_ARRAY, new NumberDecoders.Int4());
		scalar(table, PgType.INT8, PgType.INT8_ARRAY, new NumberDecoders.Int8());
		scalar(table, PgType.OID, PgType.OID_ARRAY, new NumberDecoders.Oid());
		scalar(table, PgType.INT2VECTOR, PgType.INT2VECTOR_ARRAY,
				new VectorDecoder(PgType.INT2VECTOR, table[PgType.INT2]));
		scalar(table, PgType.OIDVECTOR, PgType.OIDVECTOR_ARRAY, new VectorDecoder(PgType.OIDVECTOR, table[PgType.OID]));
		scalar(table, PgType.FLOAT4, PgType.FLOAT4_ARRAY, new NumberDecoders.Float4());
		scalar(table, PgType.FLOAT8, PgType.FLOAT8_ARRAY, new NumberDecoders.Float8());
		scalar(table, PgType.NUMERIC, PgType.NUMERIC_ARRAY, new NumberDecoders.Numeric());
		for (int[] oids : new int[][] { { PgType.TEXT, PgType.TEXT_ARRAY }, { PgType.VARCHAR, PgType.VARCHAR_ARRAY },
				{ PgType.BPCHAR, PgType.BPCHAR_ARRAY }, { PgType.NAME, PgType.NAME_ARRAY },
				{ PgType.XML, PgType.XML_ARRAY }, { PgType.JSON, PgType.JSON_ARRAY } }) {
			scalar(table, oids[0], oids[1], new Text(oids[0]));
		}
		scalar(table, PgType.CHAR, PgType.CHAR_ARRAY, new TextDecoders.Char());
		scalar(table, PgType.JSONB, PgType.JSONB_ARRAY, new TextDecoders.Jsonb());
		scalar(table, PgType.BYTEA, PgType.BYTEA_ARRAY, new TextDecoders.Bytea());
		scalar(table, PgType.UUID, PgType.UUID_ARRAY, new TextDecoders.Uuid());
		scalar(table, PgType.DATE, PgType.DATE_ARRAY, new DateTimeDecoders.Date());
		scalar(table, PgType.TIME, PgType.TIME_ARRAY, new DateTimeDecoders.Time());
		scalar(table, PgType.TIMETZ, PgType.TIMETZ_ARRAY, new DateTimeDecoders.TimeTz());
		scalar(table, PgType.TIMESTAMP, PgType.TIMESTAMP_ARRAY, new DateTimeDecoders.Timestamp());
		scalar(table, PgType.TIMESTAMPTZ, PgType.TIMESTAMPTZ_ARRAY, new DateTimeDecoders.TimestampTz());
		scalar(table, PgType.INTERVAL, PgType.INTERVAL_ARRAY, new IntervalDecoder());
		scalar(table, PgType.INET, PgType.INET_ARRAY, new Inet(false));
		scalar(table, PgType.CIDR, PgType.CIDR_ARRAY, new Inet(true));
		scalar(table, PgType.MACADDR, PgType.MACADDR_ARRAY, new MacAddr(PgType.MACADDR, 6));
		scalar(table, PgType.MACADDR8, PgType.MACADDR8_ARRAY, new MacAddr(PgType.MACADDR8, 8));
		scalar(table, PgType.MONEY, PgType.MONEY_ARRAY, new Money());
		scalar(table, PgType.BIT, PgType.BIT_ARRAY, new Bits(PgType.BIT));
		scalar(table, PgType.VARBIT, PgType.VARBIT_ARRAY, new Bits(PgType.VARBIT));
		return table;
	}

	private static void scalar(ValueDecoder[] table, int oid, int arrayOid, ValueDecoder decoder) {
		table[oid] = decoder;
		table[arrayOid] = new ArrayDecoder(arrayOid, decoder);
	}

}
