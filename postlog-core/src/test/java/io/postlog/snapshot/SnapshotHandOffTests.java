package io.postlog.snapshot;

import io.postlog.admin.PgIdentifiers;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SnapshotHandOffTests {

	@Test
	void snapshotSlotNameAppendsASuffixWhenItFits() {
		assertThat(SnapshotHandOff.snapshotSlotName("orders_cdc")).isEqualTo("orders_cdc_snapshot");
	}

	@Test
	void snapshotSlotNameOfALongNameIsShortenedWithAHashAndStaysValid() {
		String first = "a".repeat(60) + "xyz";
		String second = "a".repeat(60) + "xy1";
		String name = SnapshotHandOff.snapshotSlotName(first);
		assertThat(name).hasSizeLessThanOrEqualTo(63).isNotEqualTo(SnapshotHandOff.snapshotSlotName(second));
		assertThat(PgIdentifiers.requireSlotName(name)).isEqualTo(name);
		assertThat(SnapshotHandOff.snapshotSlotName(first)).isEqualTo(name);
	}

}
