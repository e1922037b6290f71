package io.postlog.admin;

import io.postlog.TableId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class PgIdentifiersTests {

	@ParameterizedTest
	@ValueSource(strings = { "postlog", "a", "slot_1", "___", "0" })
	void requireSlotNameAcceptsPostgresSlotNames(String name) {
		assertThat(PgIdentifiers.requireSlotName(name)).isEqualTo(name);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "Postlog", "my-slot", "x; DROP TABLE y", "a\"b", "a'b", "sl\u00f6t", "a b", "slot\n",
			"abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcd" })
	void requireSlotNameRefusesOtherNames(String name) {
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> PgIdentifiers.requireSlotName(name))
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo("slot"));
	}

	@Test
	void eachMessageStatesExactlyWhatItsKindOfNameAccepts() {
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> PgIdentifiers.requireSlotName("Orders"))
			.withMessage("Invalid slot name 'Orders': slot names are 1 to 63 characters of lower-case letters, "
					+ "digits and underscores");
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> PgIdentifiers.requireName("publication", ""))
			.withMessage("Invalid publication name '': the name is empty; publication names are 1 to 63 bytes of "
					+ "UTF-8 without NUL, any other character allowed; postlog always quotes them, so case and "
					+ "every character are kept as written");
		assertThat(PgIdentifiers.requireName("publication", "x\"; DROP TABLE orders; --"))
			.isEqualTo("x\"; DROP TABLE orders; --");
		assertThat(PgIdentifiers.quote("publication", "x\"; DROP TABLE orders; --"))
			.isEqualTo("\"x\"\"; DROP TABLE orders; --\"");
	}

	@Test
	void requireSlotNameAcceptsSixtyThreeCharacters() {
		String name = "a".repeat(63);
		assertThat(PgIdentifiers.requireSlotName(name)).isEqualTo(name);
	}

	@Test
	void quoteDoublesEmbeddedQuotes() {
		assertThat(PgIdentifiers.quote("publication", "my\"pub")).isEqualTo("\"my\"\"pub\"");
		assertThat(PgIdentifiers.quote("publication", "x; DROP TABLE y")).isEqualTo("\"x; DROP TABLE y\"");
	}

	@Test
	void quoteQualifiesTables() {
		assertThat(PgIdentifiers.quote(new TableId("Sales", "order items"))).isEqualTo("\"Sales\".\"order items\"");
	}

	@Test
	void requireNameCountsUtf8Bytes() {
		String fits = "\u00e9".repeat(31) + "x";
		String tooLong = "\u00e9".repeat(32);
		assertThat(PgIdentifiers.requireName("table", fits)).isEqualTo(fits);
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> PgIdentifiers.requireName("table", tooLong))
			.withMessageContaining("63 bytes");
	}

	@Test
	void requireNameRefusesEmptyAndNul() {
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> PgIdentifiers.requireName("schema", ""));
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> PgIdentifiers.quote("schema", "a\0b"))
			.withMessageContaining("NUL")
			.withMessageContaining("a\\u0000b");
	}

	@Test
	void messagesEscapeControlCharacters() {
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> PgIdentifiers.requireSlotName("evil\nFAKE LOG LINE"))
			.withMessageNotContaining("\n")
			.withMessageContaining("evil\\u000aFAKE LOG LINE");
	}

	@Test
	void lifecycleAndModeParseKebabCaseProperties() {
		assertThat(SlotLifecycle.fromProperty("create-if-missing")).isEqualTo(SlotLifecycle.CREATE_IF_MISSING);
		assertThat(SlotLifecycle.fromProperty("OWNED")).isEqualTo(SlotLifecycle.OWNED);
		assertThat(PublicationMode.fromProperty(" sync ")).isEqualTo(PublicationMode.SYNC);
		assertThat(PublicationMode.fromProperty("create_if_missing")).isEqualTo(PublicationMode.CREATE_IF_MISSING);
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> SlotLifecycle.fromProperty("forever"))
			.withMessageContaining("create-if-missing");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> PublicationMode.fromProperty("drop"));
	}

}
