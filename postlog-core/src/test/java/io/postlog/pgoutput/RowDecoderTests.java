package io.postlog.pgoutput;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.postlog.CapturedStdErr;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.UnchangedToast;
import io.postlog.pgoutput.PgOutputMessage.Column;
import io.postlog.pgoutput.PgOutputMessage.Relation;
import io.postlog.types.PgType;
import io.postlog.types.ValueDecoder;
import io.postlog.types.ValueDecoders;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class RowDecoderTests {

	private static final int ORDERS = 16384;

	private static final Relation ORDERS_RELATION = new Relation(null, ORDERS, "public", "orders", 'd',
			List.of(new Column(1, "id", PgType.INT8, -1), new Column(0, "note", PgType.TEXT, -1),
					new Column(0, "placed_at", PgType.TIMESTAMPTZ, -1), new Column(1, "region", PgType.INT4, -1)));

	private final RowDecoder decoder = new RowDecoder(ValueDecoders.standard());

	@Test
	void newRowDecodesEveryColumnInTableOrder() {
		this.decoder.relation(ORDERS_RELATION);
		Row row = this.decoder.newRow(ORDERS,
				tuple(binary(int64(7)), text("zoë"), text("2024-01-15 12:00:00+02"), binary(int32(3))));
		assertThat(row.columns()).containsExactly("id", "note", "placed_at", "region");
		assertThat(row.get("id")).isEqualTo(7L);
		assertThat(row.get("note")).isEqualTo("zoë");
		assertThat(row.get("placed_at")).isEqualTo(OffsetDateTime.of(2024, 1, 15, 10, 0, 0, 0, ZoneOffset.UTC));
		assertThat(row.get("region")).isEqualTo(3);
		assertThat(this.decoder.table(ORDERS)).isEqualTo(new TableId("public", "orders"));
	}

	@Test
	void nullAndUnchangedToastAreKeptApart() {
		this.decoder.relation(ORDERS_RELATION);
		Row row = this.decoder.newRow(ORDERS, tuple(text("1"), TupleValue.UNCHANGED_TOAST, TupleValue.NULL, text("2")));
		assertThat(row.get("note")).isSameAs(UnchangedToast.INSTANCE);
		assertThat(row.isUnchangedToast("note")).isTrue();
		assertThat(row.contains("placed_at")).isTrue();
		assertThat(row.get("placed_at")).isNull();
	}

	@Test
	void keyOnlyOldImageExposesOnlyTheKeyColumns() {
		this.decoder.relation(ORDERS_RELATION);
		Row row = this.decoder.oldRow(ORDERS, tuple(text("7"), TupleValue.NULL, TupleValue.NULL, text("3")), true);
		assertThat(row.asMap()).containsExactly(entry("id", 7L), entry("region", 3));
		assertThat(row.isKeyOnly()).isTrue();
	}

	@Test
	void keyOnlyOldImageExplainsAColumnItLeftOut() {
		this.decoder.relation(ORDERS_RELATION);
		Row row = this.decoder.oldRow(ORDERS, tuple(text("7"), TupleValue.NULL, TupleValue.NULL, text("3")), true);
		assertThat(row.find("note")).isEmpty();
		assertThat(row.find("id")).contains(7L);
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> row.get("note"))
			.withMessage("Column 'note' is not in this key-only row image (columns [id, region]): a DELETE (or an "
					+ "UPDATE's before image) carries only the replica-identity key columns unless the table has "
					+ "REPLICA IDENTITY FULL; use Row.find or Row.contains for a column that may be absent, or "
					+ "Change.before() of a table with REPLICA IDENTITY FULL for the whole old row");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> row.get("nope"))
			.withMessage("No column 'nope' in row with columns [id, region]");
	}

	@Test
	void fullOldImageExposesEveryColumn() {
		this.decoder.relation(ORDERS_RELATION);
		Row row = this.decoder.oldRow(ORDERS, tuple(text("7"), text("old"), TupleValue.NULL, text("3")), false);
		assertThat(row.columns()).containsExactly("id", "note", "placed_at", "region");
		assertThat(row.get("note")).isEqualTo("old");
		assertThat(row.isKeyOnly()).isFalse();
	}

	@Test
	void rowsOfOneRelationShareTheirEquality() {
		this.decoder.relation(ORDERS_RELATION);
		TupleData tuple = tuple(text("7"), text("a"), TupleValue.NULL, text("3"));
		assertThat(this.decoder.newRow(ORDERS, tuple)).isEqualTo(this.decoder.newRow(ORDERS, tuple));
	}

	@Test
	void emptyNamespaceMeansPgCatalog() {
		this.decoder.relation(new Relation(null, 1259, "", "pg_class", 'n', List.of(new Column(0, "relname", 19, -1))));
		assertThat(this.decoder.table(1259)).isEqualTo(new TableId("pg_catalog", "pg_class"));
	}

	@Test
	void newRelationMessageReplacesTheColumns() {
		this.decoder.relation(ORDERS_RELATION);
		this.decoder.relation(new Relation(null, ORDERS, "sales", "orders", 'f',
				List.of(new Column(1, "id", PgType.INT8, -1), new Column(1, "amount", PgType.NUMERIC, -1))));
		Row row = this.decoder.newRow(ORDERS, tuple(text("7"), text("1.50")));
		assertThat(row.columns()).containsExactly("id", "amount");
		assertThat(row.get("amount")).isEqualTo(new BigDecimal("1.50"));
		assertThat(this.decoder.table(ORDERS)).isEqualTo(new TableId("sales", "orders"));
		assertThatExceptionOfType(RowDecodingException.class)
			.isThrownBy(() -> this.decoder.newRow(ORDERS, tuple(text("1"), text("a"), text("b"), text("2"))));
	}

	@Test
	void unknownRelationIsAnError() {
		assertThatExceptionOfType(RowDecodingException.class)
			.isThrownBy(() -> this.decoder.newRow(42, tuple(text("secret"))))
			.withMessageContaining("42")
			.withMessageNotContaining("secret");
		assertThatExceptionOfType(RowDecodingException.class).isThrownBy(() -> this.decoder.table(42));
	}

	@Test
	void widthMismatchNamesTableAndCounts() {
		this.decoder.relation(ORDERS_RELATION);
		assertThatExceptionOfType(RowDecodingException.class)
			.isThrownBy(() -> this.decoder.newRow(ORDERS, tuple(text("1"), text("secret"), text("2"))))
			.withMessage("Tuple of table public.orders (relation OID 16384) has 3 columns but its relation has 4");
		assertThatExceptionOfType(RowDecodingException.class)
			.isThrownBy(() -> this.decoder.oldRow(ORDERS, tuple(text("1")), true));
	}

	@Test
	void valueInAFormNoDecoderKnowsIsDeliveredRawWithOneWarningAndNoValue() {
		this.decoder.relation(ORDERS_RELATION);
		try (CapturedStdErr log = CapturedStdErr.start()) {
			Row first = this.decoder.newRow(ORDERS,
					tuple(text("1"), text("fine"), text("secret-timestamp"), text("2")));
			Row second = this.decoder.newRow(ORDERS, tuple(binary("secret".getBytes(StandardCharsets.UTF_8)), text("x"),
					text("secret-again"), text("2")));
			assertThat(first.get("placed_at")).isEqualTo("secret-timestamp");
			assertThat(first.get("id")).isEqualTo(1L);
			assertThat(second.get("placed_at")).isEqualTo("secret-again");
			assertThat(second.get("id")).isEqualTo("secret".getBytes(StandardCharsets.UTF_8));
			String text = log.text();
			assertThat(text).doesNotContain("secret");
			assertThat(text.lines().filter((line) -> line.contains("'placed_at'"))).singleElement()
				.asString()
				.contains("public.orders", "type OID 1184", "text value", "String");
			assertThat(text.lines().filter((line) -> line.contains("'id'"))).singleElement()
				.asString()
				.contains("type OID 20", "binary value", "byte[]");
		}
	}

	@Test
	void decoderThatFailsOtherwiseThanMalformedFailsTheRowWithoutTheValue() {
		ValueDecoder careless = new ValueDecoder() {

			@Override
			public Object decodeText(byte[] utf8) {
				throw new IllegalStateException("bad " + new String(utf8, StandardCharsets.UTF_8));
			}

			@Override
			public Object decodeBinary(byte[] value) {
				throw new IllegalStateException("bad");
			}

		};
		RowDecoder rows = new RowDecoder(ValueDecoders.standard().withDecoder(PgType.TEXT, careless));
		rows.relation(ORDERS_RELATION);
		assertThatExceptionOfType(RowDecodingException.class)
			.isThrownBy(() -> rows.newRow(ORDERS, tuple(text("1"), text("secret"), TupleValue.NULL, text("2"))))
			.withMessage("Cannot decode column 'note' of table public.orders (type OID 25): decoder failed with "
					+ "java.lang.IllegalStateException")
			.withNoCause();
	}

	@Test
	void typeTheStreamAnnouncedAsABuiltInDecodesAsItWhenNothingElseKnowsIt() {
		RowDecoder rows = new RowDecoder(ValueDecoders.standard().withLookup((oid, decoders) -> null));
		rows.type(new PgOutputMessage.Type(null, 70000, "", "numeric"));
		rows.type(new PgOutputMessage.Type(null, 70001, "", "_int4"));
		rows.relation(new Relation(null, 1, "public", "prices", 'd',
				List.of(new Column(1, "amount", 70000, -1), new Column(0, "sizes", 70001, -1))));
		Row row = rows.newRow(1, tuple(text("1.50"), text("{1,2}")));
		assertThat(row.get("amount")).isEqualTo(new BigDecimal("1.50"));
		assertThat(row.get("sizes")).isEqualTo(List.of(1, 2));
	}

	@Test
	void typeTheStreamAnnouncedUnderAnotherSchemaStaysRawAndIsReportedOnce() {
		RowDecoder rows = new RowDecoder(ValueDecoders.standard().withLookup((oid, decoders) -> null));
		rows.type(new PgOutputMessage.Type(null, 70002, "public", "mood"));
		Relation moods = new Relation(null, 2, "public", "moods", 'd', List.of(new Column(1, "mood", 70002, -1)));
		try (CapturedStdErr log = CapturedStdErr.start()) {
			rows.relation(moods);
			rows.relation(moods);
			assertThat(rows.newRow(2, tuple(text("happy"))).get("mood")).isEqualTo("happy");
			assertThat(rows.newRow(2, tuple(binary("sad".getBytes(StandardCharsets.UTF_8)))).get("mood"))
				.isEqualTo("sad".getBytes(StandardCharsets.UTF_8));
			assertThat(log.text().lines().filter((line) -> line.contains("70002"))).singleElement()
				.asString()
				.contains("public.mood", "raw");
		}
	}

	private static Map.Entry<String, Object> entry(String key, Object value) {
		return Map.entry(key, value);
	}

	private static TupleData tuple(TupleValue... values) {
		return new TupleData(Arrays.asList(values));
	}

	private static TupleValue text(String text) {
		return new TupleValue.Text(text.getBytes(StandardCharsets.UTF_8));
	}

	private static TupleValue binary(byte[] bytes) {
		return new TupleValue.Binary(bytes);
	}

	private static byte[] int32(int value) {
		return ByteBuffer.allocate(4).putInt(value).array();
	}

	private static byte[] int64(long value) {
		return ByteBuffer.allocate(8).putLong(value).array();
	}

}
