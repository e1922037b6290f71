package io.postlog.pgoutput;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.UnchangedToast;
import io.postlog.pgoutput.PgOutputMessage.Column;
import io.postlog.pgoutput.PgOutputMessage.Relation;
import io.postlog.types.PgType;
import io.postlog.types.ValueDecoders;
import io.postlog.types.ValueDecodingException;
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
	}

	@Test
	void fullOldImageExposesEveryColumn() {
		this.decoder.relation(ORDERS_RELATION);
		Row row = this.decoder.oldRow(ORDERS, tuple(text("7"), text("old"), TupleValue.NULL, text("3")), false);
		assertThat(row.columns()).containsExactly("id", "note", "placed_at", "region");
		assertThat(row.get("note")).isEqualTo("old");
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
	void valueFailureNamesTableColumnAndTypeButNotTheValue() {
		this.decoder.relation(ORDERS_RELATION);
		assertThatExceptionOfType(RowDecodingException.class)
			.isThrownBy(() -> this.decoder.newRow(ORDERS,
					tuple(text("1"), text("fine"), text("secret-timestamp"), text("2"))))
			.withMessage("Cannot decode column 'placed_at' of table public.orders (type OID 1184)")
			.withCauseInstanceOf(ValueDecodingException.class)
			.satisfies((ex) -> assertThat(ex.getCause().getMessage()).doesNotContain("secret"));
		assertThatExceptionOfType(RowDecodingException.class)
			.isThrownBy(() -> this.decoder.newRow(ORDERS,
					tuple(binary("secret".getBytes(StandardCharsets.UTF_8)), text("x"), TupleValue.NULL, text("2"))))
			.withMessageContaining("'id'")
			.satisfies((ex) -> assertThat(ex.getCause().getMessage()).doesNotContain("secret"));
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
