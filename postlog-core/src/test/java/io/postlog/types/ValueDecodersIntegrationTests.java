package io.postlog.types;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Pattern;

import io.postlog.Row;
import io.postlog.pgoutput.PgOutputDecoder;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.RowDecoder;
import io.postlog.pgoutput.TupleValue;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PGInterval;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Decodes every column of a table holding one column per supported type, in the server's
 * text output and in the bytes of the type's send function, and as pgoutput streams it in
 * text and in binary, and checks each against the others and against what pgjdbc reads
 * for the same row.
 */
@Tag("matrix")
@PostgresTest
public class ValueDecodersIntegrationTests {

	private static final Pattern FUNCTION_NAME = Pattern.compile("[a-z][a-z0-9_]{0,62}");

	@Test
	void pgTypeConstantsMatchTheCatalog(PostgresDatabase database) throws Exception {
		try (Connection connection = database.connect();
				PreparedStatement statement = connection
					.prepareStatement("SELECT typname, typarray FROM pg_type WHERE oid = ?")) {
			for (var field : PgType.class.getFields()) {
				if (field.getName().endsWith("_ARRAY")) {
					continue;
				}
				int oid = field.getInt(null);
				int arrayOid = PgType.class.getField(field.getName() + "_ARRAY").getInt(null);
				statement.setInt(1, oid);
				try (ResultSet resultSet = statement.executeQuery()) {
					assertThat(resultSet.next()).as(field.getName()).isTrue();
					assertThat(resultSet.getString(1)).isEqualTo(field.getName().toLowerCase());
					assertThat(resultSet.getInt(2)).as(field.getName() + "_ARRAY").isEqualTo(arrayOid);
				}
			}
		}
	}

	@Test
	void textAndBinaryDecodeToTheSameValueAsPgjdbc(PostgresDatabase database) throws Exception {
		int version = database.serverVersion();
		boolean xml = supportsXml(database);
		Map<String, Column> columns = columns(version, xml);
		createTable(database, "all_types", columns);
		insertRows(database, "all_types", columns);
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			// Offsets with minutes, and seconds for the BC value's local mean time.
			statement.execute("SET TimeZone = 'Asia/Kolkata'");
			statement.execute("SET lc_monetary = 'C'");
			ValueDecoders decoders = ValueDecoders.standard().withLookup(new CatalogLookup(connection));
			int checked = 0;
			for (Map.Entry<String, Column> entry : columns.entrySet()) {
				String name = entry.getKey();
				TypeInfo type = typeOf(statement, name);
				String sql = "SELECT id, CASE WHEN " + name + " IS NULL THEN NULL ELSE format('%s', " + name + ") END, "
						+ type.send + "(" + name + "), " + name + " FROM all_types ORDER BY id";
				try (ResultSet resultSet = statement.executeQuery(sql)) {
					while (resultSet.next()) {
						String where = name + " in row " + resultSet.getInt(1);
						String text = resultSet.getString(2);
						byte[] binary = resultSet.getBytes(3);
						Object expected = entry.getValue().jdbc.read(resultSet, 4);
						if (text == null) {
							assertThat(binary).as(where).isNull();
							assertThat(expected).as(where).isNull();
							continue;
						}
						Object fromText = decoders.decodeText(type.oid, text.getBytes(StandardCharsets.UTF_8));
						Object fromBinary = decoders.decodeBinary(type.oid, binary);
						assertThat(comparable(fromBinary)).as(where + " binary vs text")
							.isEqualTo(comparable(fromText));
						assertThat(comparable(fromText)).as(where + " vs pgjdbc").isEqualTo(comparable(expected));
						checked++;
					}
				}
			}
			assertThat(checked).isGreaterThan(2 * columns.size());
		}
	}

	@Test
	void pgoutputRowsDecodeInTextAndBinaryToWhatPgjdbcReads(PostgresDatabase database) throws Exception {
		int version = database.serverVersion();
		Map<String, Column> columns = columns(version, supportsXml(database));
		createTable(database, "streamed_types", columns);
		database.execute("CREATE PUBLICATION streamed_types_pub FOR TABLE streamed_types",
				"SELECT pg_create_logical_replication_slot('streamed_types_slot', 'pgoutput')");
		insertRows(database, "streamed_types", columns);
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			statement.execute("SET TimeZone = 'Asia/Kolkata'");
			statement.execute("SET lc_monetary = 'C'");
			ValueDecoders decoders = ValueDecoders.standard().withLookup(new CatalogLookup(connection));
			List<Row> expected = readWithPgjdbc(statement, columns);
			// Binary tuples need PostgreSQL 14; text is what every server streams.
			List<Boolean> formats = (version >= 140000) ? List.of(false, true) : List.of(false);
			for (boolean binary : formats) {
				List<Row> streamed = streamRows(statement, decoders, binary);
				assertThat(streamed).as("rows streamed in %s", binary ? "binary" : "text").hasSize(expected.size());
				for (int row = 0; row < expected.size(); row++) {
					for (String name : columns.keySet()) {
						assertThat(comparable(streamed.get(row).get(name)))
							.as("%s in row %d streamed in %s", name, row, binary ? "binary" : "text")
							.isEqualTo(comparable(expected.get(row).get(name)));
					}
				}
			}
		}
		finally {
			database.execute("SELECT pg_drop_replication_slot('streamed_types_slot')");
		}
	}

	private static List<Row> readWithPgjdbc(Statement statement, Map<String, Column> columns) throws SQLException {
		List<Row> rows = new ArrayList<>();
		try (ResultSet resultSet = statement
			.executeQuery("SELECT " + String.join(", ", columns.keySet()) + " FROM streamed_types ORDER BY id")) {
			while (resultSet.next()) {
				Map<String, @Nullable Object> values = new LinkedHashMap<>();
				int index = 1;
				for (Map.Entry<String, Column> entry : columns.entrySet()) {
					values.put(entry.getKey(), entry.getValue().jdbc.read(resultSet, index++));
				}
				rows.add(Row.of(values));
			}
		}
		return rows;
	}

	private static List<Row> streamRows(Statement statement, ValueDecoders decoders, boolean binary)
			throws SQLException {
		RowDecoder rowDecoder = new RowDecoder(decoders);
		List<Row> rows = new ArrayList<>();
		try (ResultSet changes = statement.executeQuery("SELECT data FROM pg_logical_slot_peek_binary_changes("
				+ "'streamed_types_slot', NULL, NULL, 'proto_version', '1', 'publication_names', 'streamed_types_pub'"
				+ (binary ? ", 'binary', 'true'" : "") + ")")) {
			while (changes.next()) {
				PgOutputMessage message = PgOutputDecoder.decode(ByteBuffer.wrap(changes.getBytes(1)));
				if (message instanceof PgOutputMessage.Relation relation) {
					rowDecoder.relation(relation);
				}
				else if (message instanceof PgOutputMessage.Insert insert) {
					assertThat(insert.newTuple().values())
						.allMatch((value) -> binary ? value instanceof TupleValue.Binary || value == TupleValue.NULL
								: value instanceof TupleValue.Text || value == TupleValue.NULL);
					rows.add(rowDecoder.newRow(insert.relationId(), insert.newTuple()));
				}
			}
		}
		rows.sort(java.util.Comparator.comparing((row) -> row.get("id", Integer.class)));
		return rows;
	}

	public static void createTable(PostgresDatabase database, String table, Map<String, Column> columns) {
		database.execute(
				"DO $$ BEGIN CREATE TYPE mood AS ENUM ('happy', 'sad', 'so \"so\"');"
						+ " EXCEPTION WHEN duplicate_object THEN NULL; END $$",
				"DO $$ BEGIN CREATE DOMAIN posint AS int4 CHECK (VALUE > 0);"
						+ " EXCEPTION WHEN duplicate_object THEN NULL; END $$");
		StringBuilder create = new StringBuilder("CREATE TABLE " + table + " (id int PRIMARY KEY");
		columns.forEach((name, column) -> create.append(", ").append(name).append(' ').append(column.sqlType));
		database.execute(create.append(")").toString());
	}

	public static void insertRows(PostgresDatabase database, String table, Map<String, Column> columns) {
		for (int row = 0; row < 3; row++) {
			StringBuilder insert = new StringBuilder("INSERT INTO " + table + " (id");
			StringBuilder values = new StringBuilder(") VALUES (" + row);
			for (Map.Entry<String, Column> entry : columns.entrySet()) {
				insert.append(", ").append(entry.getKey());
				values.append(", ").append(entry.getValue().rows[row]);
			}
			database.execute(insert.append(values).append(")").toString());
		}
	}

	public static Map<String, Column> columns(int version, boolean xml) {
		boolean numericInfinity = version >= 140000;
		Map<String, Column> columns = new LinkedHashMap<>();
		columns.put("c_bool", new Column("bool", (rs, i) -> nullable(rs, rs.getBoolean(i)), "true", "false", "NULL"));
		columns.put("c_bytea", new Column("bytea", ResultSet::getBytes, "'\\x00ff5c27'", "''", "NULL"));
		columns.put("c_char", new Column("\"char\"", ResultSet::getString, "'a'", "''", "NULL"));
		columns.put("c_name", new Column("name", ResultSet::getString, "'zoë'", "''", "NULL"));
		columns.put("c_int8", new Column("int8", (rs, i) -> nullable(rs, rs.getLong(i)), "9223372036854775807",
				"-9223372036854775808", "NULL"));
		columns.put("c_int2", new Column("int2", (rs, i) -> nullable(rs, rs.getShort(i)), "32767", "-32768", "NULL"));
		columns.put("c_int4",
				new Column("int4", (rs, i) -> nullable(rs, rs.getInt(i)), "2147483647", "-2147483648", "NULL"));
		columns.put("c_text", new Column("text", ResultSet::getString, "'zoë ☃ 𝄞 \"quoted\" \\ back'", "''", "NULL"));
		columns.put("c_oid", new Column("oid", (rs, i) -> nullable(rs, rs.getLong(i)), "4294967295", "0", "NULL"));
		columns.put("c_json",
				new Column("json", ResultSet::getString, "'{\"b\": [1, 2.50], \"a\": \"é\"}'", "'null'", "NULL"));
		if (xml) {
			columns.put("c_xml", new Column("xml", ResultSet::getString, "'<a b=\"1\">é</a>'", "''", "NULL"));
		}
		columns.put("c_float4",
				new Column("float4", (rs, i) -> nullable(rs, rs.getFloat(i)), "1.1", "'NaN'", "'-Infinity'"));
		columns.put("c_float8",
				new Column("float8", (rs, i) -> nullable(rs, rs.getDouble(i)), "0.1 + 0.2", "'Infinity'", "-1e-300"));
		columns.put("c_money", new Column("money", ResultSet::getString, "1234.56", "'-92233720368547758.08'", "NULL"));
		columns.put("c_macaddr", new Column("macaddr", ResultSet::getString, "'08:00:2b:01:02:ff'", "NULL", "NULL"));
		columns.put("c_inet",
				new Column("inet", ResultSet::getString, "'192.168.0.1/24'", "'::ffff:1.2.3.4'", "'2001:db8::1/64'"));
		columns.put("c_cidr",
				new Column("cidr", ResultSet::getString, "'10.0.0.0/8'", "'2001:db8::/32'", "'10.1.2.3/32'"));
		columns.put("c_bpchar", new Column("char(5)", ResultSet::getString, "'ab'", "''", "NULL"));
		columns.put("c_varchar", new Column("varchar(10)", ResultSet::getString, "'é'", "''", "NULL"));
		columns.put("c_date", new Column("date", (rs, i) -> rs.getObject(i, LocalDate.class), "'2024-02-29'",
				"'0044-03-15 BC'", "'infinity'"));
		columns.put("c_time", new Column("time", (rs, i) -> rs.getObject(i, LocalTime.class), "'04:05:06.789'",
				"'24:00:00'", "'00:00:00'"));
		columns.put("c_timestamp", new Column("timestamp", (rs, i) -> rs.getObject(i, LocalDateTime.class),
				"'2024-01-15 12:34:56.789012'", "'-infinity'", "'10000-01-01 00:00:00'"));
		columns.put("c_timestamptz", new Column("timestamptz", (rs, i) -> rs.getObject(i, OffsetDateTime.class),
				"'2024-01-15 12:34:56.789+00'", "'infinity'", "'0044-03-15 12:00:00+00 BC'"));
		columns.put("c_interval", new Column("interval", ValueDecodersIntegrationTests::interval,
				"'1 year 2 mons 3 days 04:05:06.789'", "'-1 years -2 mons +3 days -04:05:06.5'", "'-00:00:01'"));
		columns.put("c_timetz", new Column("timetz", (rs, i) -> rs.getObject(i, OffsetTime.class),
				"'04:05:06.789-05:30'", "'23:59:59.999999+14'", "NULL"));
		columns.put("c_bit", new Column("bit(5)", ResultSet::getString, "B'10110'", "B'00000'", "NULL"));
		columns.put("c_varbit", new Column("varbit", ResultSet::getString, "B'111111110'", "B''", "NULL"));
		columns.put("c_numeric", new Column("numeric", ValueDecodersIntegrationTests::numeric, "1234.5678", "'NaN'",
				numericInfinity ? "'-Infinity'" : "-0.000000000000000000001"));
		columns.put("c_numeric_big", new Column("numeric", ValueDecodersIntegrationTests::numeric,
				"123456789012345678901234567890.123456789", "0.00", "-10000"));
		columns.put("c_uuid", new Column("uuid", (rs, i) -> rs.getObject(i, UUID.class),
				"'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "'00000000-0000-0000-0000-000000000000'", "NULL"));
		columns.put("c_jsonb",
				new Column("jsonb", ResultSet::getString, "'{\"b\": [1, 2.50], \"a\": \"é\"}'", "'\"\"'", "NULL"));
		columns.put("c_macaddr8",
				new Column("macaddr8", ResultSet::getString, "'08:00:2b:01:02:03:04:ab'", "NULL", "NULL"));
		columns.put("a_int4",
				new Column("int4[]", array(Function.identity()), "'{1,NULL,-3}'", "'{}'", "'[0:1]={1,2}'"));
		columns.put("a_text", new Column("text[]", array(Function.identity()),
				"ARRAY['a b', NULL, 'say \"hi\"', 'NULL', '', 'back\\slash', 'é']", "'{}'", "NULL"));
		columns.put("a_int2d", new Column("int[][]", array(Function.identity()), "'{{1,2},{NULL,4}}'",
				"'[0:1][2:3]={{1,2},{3,4}}'", "NULL"));
		columns.put("a_numeric",
				new Column("numeric[]", array(Function.identity()), "'{1.50,-0.001,NULL}'", "'{}'", "NULL"));
		columns.put("a_timestamptz",
				new Column("timestamptz[]",
						array((element) -> ((Timestamp) element).toInstant().atOffset(ZoneOffset.UTC)),
						"ARRAY['2024-01-15 12:34:56.789+00'::timestamptz, NULL]", "NULL", "NULL"));
		columns.put("a_uuid", new Column("uuid[]", array(Function.identity()),
				"ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, NULL]", "NULL", "NULL"));
		columns.put("c_mood", new Column("mood", ResultSet::getString, "'happy'", "'so \"so\"'", "NULL"));
		columns.put("c_posint",
				new Column("posint", (rs, i) -> nullable(rs, rs.getInt(i)), "42", "2147483647", "NULL"));
		columns.put("a_mood",
				new Column("mood[]", array(Function.identity()), "'{happy,NULL,\"so \\\"so\\\"\"}'", "'{}'", "NULL"));
		if (version >= 110000) {
			// Arrays of domains came with PostgreSQL 11.
			columns.put("a_posint", new Column("posint[]", array((element) -> Integer.valueOf(element.toString())),
					"'{1,NULL,3}'", "NULL", "NULL"));
		}
		return columns;
	}

	public static boolean supportsXml(PostgresDatabase database) {
		try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
			statement.execute("SELECT '<a/>'::xml");
			return true;
		}
		catch (SQLException ex) {
			return false;
		}
	}

	private static TypeInfo typeOf(Statement statement, String column) throws SQLException {
		try (ResultSet resultSet = statement
			.executeQuery("SELECT a.atttypid, t.typsend::text FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid"
					+ " WHERE a.attrelid = 'all_types'::regclass AND a.attname = '" + column + "'")) {
			assertThat(resultSet.next()).isTrue();
			String send = resultSet.getString(2);
			assertThat(send).matches(FUNCTION_NAME);
			return new TypeInfo(resultSet.getInt(1), send);
		}
	}

	private static @Nullable Object nullable(ResultSet resultSet, Object value) throws SQLException {
		return resultSet.wasNull() ? null : value;
	}

	private static @Nullable Object numeric(ResultSet resultSet, int index) throws SQLException {
		String text = resultSet.getString(index);
		if (text == null) {
			return null;
		}
		return Character.isDigit(text.charAt(text.length() - 1)) ? resultSet.getBigDecimal(index)
				: (Object) resultSet.getDouble(index);
	}

	private static @Nullable Object interval(ResultSet resultSet, int index) throws SQLException {
		PGInterval interval = (PGInterval) resultSet.getObject(index);
		if (interval == null) {
			return null;
		}
		long micros = ((interval.getHours() * 60L + interval.getMinutes()) * 60 + interval.getWholeSeconds())
				* 1_000_000 + interval.getMicroSeconds();
		return new Interval(interval.getYears() * 12 + interval.getMonths(), interval.getDays(), micros);
	}

	private static Jdbc array(Function<Object, Object> element) {
		return (resultSet, index) -> {
			Array array = resultSet.getArray(index);
			return (array != null) ? list(array.getArray(), element) : null;
		};
	}

	private static @Nullable Object list(@Nullable Object value, Function<Object, Object> element) {
		if (value == null) {
			return null;
		}
		if (value instanceof Object[] items) {
			List<@Nullable Object> list = new ArrayList<>();
			for (Object item : items) {
				list.add(list(item, element));
			}
			return list;
		}
		return element.apply(value);
	}

	/** Byte arrays compared by content, lists element by element. */
	public static @Nullable Object comparable(@Nullable Object value) {
		if (value instanceof byte[] bytes) {
			return "bytes " + HexFormat.of().formatHex(bytes);
		}
		if (value instanceof List<?> items) {
			List<@Nullable Object> list = new ArrayList<>();
			items.forEach((item) -> list.add(comparable(item)));
			return list;
		}
		if (value instanceof BigDecimal decimal) {
			return "numeric " + decimal.toPlainString();
		}
		return value;
	}

	@FunctionalInterface
	public interface Jdbc {

		@Nullable Object read(ResultSet resultSet, int index) throws SQLException;

	}

	public record Column(String sqlType, Jdbc jdbc, String... rows) {

	}

	record TypeInfo(int oid, String send) {

	}

	/**
	 * Enums decode as their label, domains as their base type, arrays of them element by
	 * element, as a consumer's lookup would do it.
	 */
	public static final class CatalogLookup implements TypeLookup {

		private final Connection connection;

		public CatalogLookup(Connection connection) {
			this.connection = connection;
		}

		@Override
		public @Nullable ValueDecoder lookup(int typeOid, ValueDecoders decoders) {
			try (PreparedStatement statement = this.connection
				.prepareStatement("SELECT typtype, typbasetype, typelem, typcategory FROM pg_type WHERE oid = ?")) {
				statement.setInt(1, typeOid);
				try (ResultSet resultSet = statement.executeQuery()) {
					if (!resultSet.next()) {
						return null;
					}
					String typtype = resultSet.getString(1);
					if (typtype.equals("e")) {
						return decoders.decoderFor(PgType.TEXT);
					}
					if (typtype.equals("d")) {
						return decoders.decoderFor(resultSet.getInt(2));
					}
					if (resultSet.getString(4).equals("A") && resultSet.getInt(3) != 0) {
						return decoders.arrayOf(typeOid, decoders.decoderFor(resultSet.getInt(3)));
					}
					return null;
				}
			}
			catch (SQLException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

}
