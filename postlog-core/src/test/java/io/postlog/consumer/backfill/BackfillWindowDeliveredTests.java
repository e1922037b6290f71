package io.postlog.consumer.backfill;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BackfillWindowDeliveredTests {

	@Test
	void keepsTheLastTransactionsUpToItsCapacity() {
		BackfillWindow.Delivered delivered = new BackfillWindow.Delivered(3);
		assertThat(delivered.copy()).isEmpty();
		delivered.add(7);
		delivered.add(8);
		assertThat(delivered.copy()).containsExactlyInAnyOrder(7, 8);
		delivered.add(9);
		delivered.add(10);
		assertThat(delivered.copy()).containsExactlyInAnyOrder(8, 9, 10);
	}

}
