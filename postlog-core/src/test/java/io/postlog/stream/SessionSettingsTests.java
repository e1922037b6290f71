package io.postlog.stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SessionSettingsTests {

	@Test
	void statementsPinEverySettingTextValuesDependOn() {
		assertThat(SessionSettings.statements()).containsExactly("SET DateStyle = 'ISO'",
				"SET IntervalStyle = 'postgres'", "SET extra_float_digits = '3'", "SET bytea_output = 'hex'",
				"SET lc_monetary = 'C'");
	}

	@Test
	void startupOptionsCarryTheSameSettings() {
		assertThat(SessionSettings.startupOptions()).isEqualTo("-c DateStyle=ISO -c IntervalStyle=postgres "
				+ "-c extra_float_digits=3 -c bytea_output=hex -c lc_monetary=C");
	}

}
