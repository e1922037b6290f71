package io.postlog.types;

/**
 * OIDs of the built-in PostgreSQL types postlog decodes, and of their array types (the
 * {@code _ARRAY} constants), as fixed in {@code pg_type.dat}. Constants only.
 */
public final class PgType {

	/** {@code bool}. */
	public static final int BOOL = 16;

	/** {@code bool[]}. */
	public static final int BOOL_ARRAY = 1000;

	/** {@code bytea}. */
	public static final int BYTEA = 17;

	/** {@code bytea[]}. */
	public static final int BYTEA_ARRAY = 1001;

	/** {@code "char"}. */
	public static final int CHAR = 18;

	/** {@code "char"[]}. */
	public static final int CHAR_ARRAY = 1002;

	/** {@code name}. */
	public static final int NAME = 19;

	/** {@code name[]}. */
	public static final int NAME_ARRAY = 1003;

	/** {@code int8 (bigint)}. */
	public static final int INT8 = 20;

	/** {@code int8 (bigint)[]}. */
	public static final int INT8_ARRAY = 1016;

	/** {@code int2vector}: a vector of {@code int2}, such as {@code pg_index.indkey}. */
	public static final int INT2VECTOR = 22;

	/** {@code int2vector[]}. */
	public static final int INT2VECTOR_ARRAY = 1006;

	/** {@code int2 (smallint)}. */
	public static final int INT2 = 21;

	/** {@code int2 (smallint)[]}. */
	public static final int INT2_ARRAY = 1005;

	/** {@code int4 (integer)}. */
	public static final int INT4 = 23;

	/** {@code int4 (integer)[]}. */
	public static final int INT4_ARRAY = 1007;

	/** {@code text}. */
	public static final int TEXT = 25;

	/** {@code text[]}. */
	public static final int TEXT_ARRAY = 1009;

	/** {@code oid}. */
	public static final int OID = 26;

	/** {@code oid[]}. */
	public static final int OID_ARRAY = 1028;

	/**
	 * {@code oidvector}: a vector of {@code oid}, such as {@code pg_proc.proargtypes}.
	 */
	public static final int OIDVECTOR = 30;

	/** {@code oidvector[]}. */
	public static final int OIDVECTOR_ARRAY = 1013;

	/** {@code json}. */
	public static final int JSON = 114;

	/** {@code json[]}. */
	public static final int JSON_ARRAY = 199;

	/** {@code xml}. */
	public static final int XML = 142;

	/** {@code xml[]}. */
	public static final int XML_ARRAY = 143;

	/** {@code float4 (real)}. */
	public static final int FLOAT4 = 700;

	/** {@code float4 (real)[]}. */
	public static final int FLOAT4_ARRAY = 1021;

	/** {@code float8 (double precision)}. */
	public static final int FLOAT8 = 701;

	/** {@code float8 (double precision)[]}. */
	public static final int FLOAT8_ARRAY = 1022;

	/** {@code money}. */
	public static final int MONEY = 790;

	/** {@code money[]}. */
	public static final int MONEY_ARRAY = 791;

	/** {@code macaddr}. */
	public static final int MACADDR = 829;

	/** {@code macaddr[]}. */
	public static final int MACADDR_ARRAY = 1040;

	/** {@code inet}. */
	public static final int INET = 869;

	/** {@code inet[]}. */
	public static final int INET_ARRAY = 1041;

	/** {@code cidr}. */
	public static final int CIDR = 650;

	/** {@code cidr[]}. */
	public static final int CIDR_ARRAY = 651;

	/** {@code macaddr8}. */
	public static final int MACADDR8 = 774;

	/** {@code macaddr8[]}. */
	public static final int MACADDR8_ARRAY = 775;

	/** {@code bpchar (char(n))}. */
	public static final int BPCHAR = 1042;

	/** {@code bpchar (char(n))[]}. */
	public static final int BPCHAR_ARRAY = 1014;

	/** {@code varchar}. */
	public static final int VARCHAR = 1043;

	/** {@code varchar[]}. */
	public static final int VARCHAR_ARRAY = 1015;

	/** {@code date}. */
	public static final int DATE = 1082;

	/** {@code date[]}. */
	public static final int DATE_ARRAY = 1182;

	/** {@code time}. */
	public static final int TIME = 1083;

	/** {@code time[]}. */
	public static final int TIME_ARRAY = 1183;

	/** {@code timestamp}. */
	public static final int TIMESTAMP = 1114;

	/** {@code timestamp[]}. */
	public static final int TIMESTAMP_ARRAY = 1115;

	/** {@code timestamptz}. */
	public static final int TIMESTAMPTZ = 1184;

	/** {@code timestamptz[]}. */
	public static final int TIMESTAMPTZ_ARRAY = 1185;

	/** {@code interval}. */
	public static final int INTERVAL = 1186;

	/** {@code interval[]}. */
	public static final int INTERVAL_ARRAY = 1187;

	/** {@code timetz}. */
	public static final int TIMETZ = 1266;

	/** {@code timetz[]}. */
	public static final int TIMETZ_ARRAY = 1270;

	/** {@code bit}. */
	public static final int BIT = 1560;

	/** {@code bit[]}. */
	public static final int BIT_ARRAY = 1561;

	/** {@code varbit}. */
	public static final int VARBIT = 1562;

	/** {@code varbit[]}. */
	public static final int VARBIT_ARRAY = 1563;

	/** {@code numeric}. */
	public static final int NUMERIC = 1700;

	/** {@code numeric[]}. */
	public static final int NUMERIC_ARRAY = 1231;

	/** {@code uuid}. */
	public static final int UUID = 2950;

	/** {@code uuid[]}. */
	public static final int UUID_ARRAY = 2951;

	/** {@code jsonb}. */
	public static final int JSONB = 3802;

	/** {@code jsonb[]}. */
	public static final int JSONB_ARRAY = 3807;

	private PgType() {
	}

}
