package io.postlog;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class LsnTests {

	@Test
	void parseReadsBothHalves() {
		assertThat(Lsn.parse("0/16B374D")).isEqualTo(new Lsn(0x16B374DL));
		assertThat(Lsn.parse("1/0")).isEqualTo(new Lsn(1L << 32));
		assertThat(Lsn.parse("ffffffff/FFFFFFFF")).isEqualTo(new Lsn(-1L));
	}

	@Test
	void toStringPrintsTheServerForm() {
		assertThat(new Lsn(0x16B374DL)).hasToString("0/16B374D");
		assertThat(new Lsn(-1L)).hasToString("FFFFFFFF/FFFFFFFF");
		assertThat(Lsn.INVALID).hasToString("0/0");
	}

	@Test
	void compareToIsUnsigned() {
		assertThat(new Lsn(-1L)).isGreaterThan(new Lsn(1L));
		assertThat(Lsn.parse("0/10").isAfter(Lsn.parse("0/F"))).isTrue();
	}

	@Test
	void minusGivesBytesBetweenPositions() {
		assertThat(Lsn.parse("1/0").minus(Lsn.parse("0/FFFFFF00"))).isEqualTo(256);
		assertThat(Lsn.parse("0/0").minus(Lsn.parse("0/10"))).isEqualTo(-16);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "/", "0/", "/0", "16B374D", "0/16B374G", "123456789/0", "0/123456789", "-1/0", "0//0",
			" 0/0" })
	void parseRejectsMalformedText(String text) {
		assertThatIllegalArgumentException().isThrownBy(() -> Lsn.parse(text)).withMessageContaining("Not an LSN");
	}

}
