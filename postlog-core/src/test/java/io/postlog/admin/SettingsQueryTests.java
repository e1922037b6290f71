package io.postlog.admin;

import java.time.Duration;

import io.postlog.PostlogException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class SettingsQueryTests {

	@Test
	void memoryUnitsIncludingCountedOnesConvertToBytes() {
		assertThat(SettingsQuery.unitBytes(null)).isEqualTo(1);
		assertThat(SettingsQuery.unitBytes("B")).isEqualTo(1);
		assertThat(SettingsQuery.unitBytes("kB")).isEqualTo(1024);
		assertThat(SettingsQuery.unitBytes("8kB")).isEqualTo(8192);
		assertThat(SettingsQuery.unitBytes("MB")).isEqualTo(1024 * 1024);
		assertThat(SettingsQuery.unitBytes("16MB")).isEqualTo(16 * 1024 * 1024);
		assertThat(SettingsQuery.unitBytes("GB")).isEqualTo(1024L * 1024 * 1024);
		assertThat(SettingsQuery.bytes(new SettingsQuery.Setting("64", "MB"))).isEqualTo(64L * 1024 * 1024);
		assertThatExceptionOfType(PostlogException.class).isThrownBy(() -> SettingsQuery.unitBytes("XB"));
	}

	@Test
	void timeUnitsConvertAndZeroOrNegativeMeanOff() {
		assertThat(SettingsQuery.nullableDuration(new SettingsQuery.Setting("60000", "ms")))
			.isEqualTo(Duration.ofMinutes(1));
		assertThat(SettingsQuery.nullableDuration(new SettingsQuery.Setting("3600", "s")))
			.isEqualTo(Duration.ofHours(1));
		assertThat(SettingsQuery.nullableDuration(new SettingsQuery.Setting("5", "min")))
			.isEqualTo(Duration.ofMinutes(5));
		assertThat(SettingsQuery.nullableDuration(new SettingsQuery.Setting("0", "s"))).isEqualTo(Duration.ZERO);
		assertThat(SettingsQuery.nullableDuration(new SettingsQuery.Setting("-1", "ms"))).isEqualTo(Duration.ZERO);
		assertThat(SettingsQuery.nullableDuration(null)).isNull();
	}

}
