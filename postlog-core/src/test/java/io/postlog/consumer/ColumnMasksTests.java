package io.postlog.consumer;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.ReplicationConsumerException;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.UnchangedToast;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Column masks: each mask on before and after images, key-only images kept key-only, SQL
 * NULL and the unchanged-TOAST marker left as they are, other tables untouched, and a
 * hash refused without a key long enough.
 */
class ColumnMasksTests {

	private static final byte[] KEY = "0123456789abcdef-key".getBytes(StandardCharsets.UTF_8);

	private static final TableId PEOPLE = TableId.parse("people");

	private final ColumnMasks masks = ColumnMasks.of(Map.of(PEOPLE, Map.of("ssn", ColumnMasks.Mask.HASH, "email",
			ColumnMasks.Mask.REDACT, "notes", ColumnMasks.Mask.NULL, "id", ColumnMasks.Mask.HASH)), KEY);

	@Test
	void eachMaskReplacesTheValueInBothImages() throws Exception {
		Row.Columns columns = Row.columns(List.of("id", "name", "ssn", "email", "notes"));
		Row before = Row.of(columns, new Object[] { 1, "Ann", "123-45-6789", "ann@example.org", "old" });
		Row after = Row.of(columns, new Object[] { 1, "Ann", "123-45-6789", "ann@example.org", "new" });
		Change masked = this.masks.apply(change(Operation.UPDATE, before, after));
		Map<String, Object> expected = new java.util.LinkedHashMap<>();
		expected.put("id", hmac("1"));
		expected.put("name", "Ann");
		expected.put("ssn", hmac("123-45-6789"));
		expected.put("email", ColumnMasks.REDACTED);
		expected.put("notes", null);
		assertThat(masked.after().asMap()).isEqualTo(expected);
		assertThat(masked.before().asMap()).isEqualTo(expected);
		assertThat(masked.id()).isEqualTo("s/0/16B374D/0");
		assertThat(before.get("ssn")).as("the original row is unchanged").isEqualTo("123-45-6789");
	}

	@Test
	void nullAndUnchangedToastStayAndKeyOnlyImagesStayKeyOnly() throws Exception {
		Row.Columns columns = Row.columns(List.of("id", "ssn", "email"));
		Row after = Row.of(columns, new Object[] { 2, null, UnchangedToast.INSTANCE });
		Row key = Row.of(Row.keyColumns(List.of("id"), List.of("id", "ssn", "email")), new Object[] { 2 });
		Change masked = this.masks.apply(change(Operation.UPDATE, key, after));
		assertThat(masked.after().get("ssn")).isNull();
		assertThat(masked.after().isUnchangedToast("email")).isTrue();
		assertThat(masked.before().isKeyOnly()).isTrue();
		assertThat(masked.before().get("id")).isEqualTo(hmac("2"));
	}

	@Test
	void oneValueReadElsewhereIsMaskedAsTheChangeWouldBe() throws Exception {
		assertThat(this.masks.mask(PEOPLE, "ssn", "123-45-6789")).isEqualTo(hmac("123-45-6789"));
		assertThat(this.masks.mask(PEOPLE, "name", "Ann")).isEqualTo("Ann");
		assertThat(this.masks.mask(PEOPLE, "ssn", null)).isNull();
		assertThat(this.masks.mask(TableId.parse("orders"), "ssn", "x")).isEqualTo("x");
	}

	@Test
	void changesOfOtherTablesAreReturnedAsTheyAre() {
		Change other = new Change(Operation.INSERT, TableId.parse("orders"), null, Row.of(Map.of("ssn", "123-45-6789")),
				1, Lsn.parse("0/16B374D"), Instant.EPOCH, 0, "s/0/16B374D/0");
		assertThat(this.masks.apply(other)).isSameAs(other);
	}

	@Test
	void aHashWithoutAKeyLongEnoughIsRefused() {
		Map<TableId, Map<String, ColumnMasks.Mask>> hashed = Map.of(PEOPLE, Map.of("ssn", ColumnMasks.Mask.HASH));
		assertThatExceptionOfType(ReplicationConsumerException.class).isThrownBy(() -> ColumnMasks.of(hashed, null))
			.withMessageContaining("A hashed column needs a hash key of at least 16 bytes (postlog.mask-key)");
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> ColumnMasks.of(hashed, "short".getBytes(StandardCharsets.UTF_8)));
		assertThat(ColumnMasks.of(Map.of(PEOPLE, Map.of("ssn", ColumnMasks.Mask.REDACT)), null).isEmpty()).isFalse();
		assertThat(ColumnMasks.Mask.fromProperty(" Hash ")).isEqualTo(ColumnMasks.Mask.HASH);
	}

	private static Change change(Operation operation, Row before, Row after) {
		return new Change(operation, PEOPLE, before, after, 1, Lsn.parse("0/16B374D"), Instant.EPOCH, 0,
				"s/0/16B374D/0");
	}

	static String hmac(String value) throws Exception {
		Mac mac = Mac.getInstance("HmacSHA256");
		mac.init(new SecretKeySpec(KEY, "HmacSHA256"));
		return HexFormat.of().formatHex(mac.doFinal(value.getBytes(StandardCharsets.UTF_8)));
	}

}
