package io.postlog.admin;

import java.sql.SQLException;

import io.postlog.Lsn;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SlotLossTests {

	private static final Lsn CONFIRMED = Lsn.parse("0/3000060");

	@Test
	void aValidSlotIsNotLost() {
		SlotInfo slot = slot("reserved", null, null);
		assertThat(SlotLoss.detect("s", slot, true, null)).isEmpty();
		assertThat(SlotLoss.detect("s", slot("unreserved", null, null), true, null)).isEmpty();
		assertThat(SlotLoss.detect("s", slot(null, null, null), true, null)).isEmpty();
	}

	@Test
	void walStatusLostInvalidationReasonOrConflictMeanLost() {
		assertThat(SlotLoss.detect("s", slot("lost", null, null), false, null)).hasValueSatisfying((loss) -> {
			assertThat(loss.reason()).isEqualTo(SlotLostException.Reason.INVALIDATED);
			assertThat(loss.walStatus()).isEqualTo("lost");
			assertThat(loss.lastConfirmedLsn()).isEqualTo(CONFIRMED);
			assertThat(loss).hasMessage("Replication slot 's' is lost: the server invalidated it (wal_status=lost); "
					+ "changes after 0/3000060 can no longer be streamed");
		});
		assertThat(SlotLoss.detect("s", slot("lost", "idle_timeout", null), false, null))
			.hasValueSatisfying((loss) -> assertThat(loss).hasMessageContaining("invalidation_reason=idle_timeout"));
		assertThat(SlotLoss.detect("s", slot("reserved", null, true), false, null)).isPresent();
	}

	@Test
	void aMissingSlotIsLostOnlyWhenItShouldExist() {
		assertThat(SlotLoss.detect("s", null, false, CONFIRMED)).isEmpty();
		assertThat(SlotLoss.detect("s", null, true, CONFIRMED)).hasValueSatisfying((loss) -> {
			assertThat(loss.reason()).isEqualTo(SlotLostException.Reason.MISSING);
			assertThat(loss.lastConfirmedLsn()).isEqualTo(CONFIRMED);
			assertThat(loss).hasMessageContaining("does not exist although it did before");
		});
	}

	@Test
	void serverErrorsThatMayMeanALossAreRecognisedBySqlState() {
		assertThat(SlotLoss.mayMeanLost(new SQLException("can no longer get changes", "55000"))).isTrue();
		assertThat(SlotLoss.mayMeanLost(new SQLException("replication slot does not exist", "42704"))).isTrue();
		assertThat(SlotLoss.mayMeanLost(new SQLException("requested WAL segment removed", "58P01"))).isTrue();
		assertThat(SlotLoss.mayMeanLost(new SQLException("wrapped", "08006", new SQLException("x", "55000")))).isTrue();
		assertThat(SlotLoss.mayMeanLost(new SQLException("in use", "55006"))).isFalse();
		assertThat(SlotLoss.mayMeanLost(new SQLException("no state"))).isFalse();
	}

	private static SlotInfo slot(String walStatus, String invalidationReason, Boolean conflicting) {
		return new SlotInfo("s", "pgoutput", "logical", "db", false, false, null,
				"lost".equals(walStatus) ? null : Lsn.parse("0/3000028"), CONFIRMED, walStatus, null, null, conflicting,
				invalidationReason, null, null);
	}

}
