package io.postlog.consumer.backfill;

import java.nio.charset.StandardCharsets;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.consumer.checkpoint.ChunkMark;
import io.postlog.consumer.delivery.AckWindow;
import io.postlog.consumer.delivery.Event;
import io.postlog.snapshot.BackfillChunk;
import io.postlog.snapshot.BackfillRow;
import io.postlog.snapshot.BackfillTable;
import io.postlog.snapshot.BackfillTables;
import io.postlog.snapshot.ReadVisibility;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bursts in which the {@link BackfillWindow} delivers a chunk's rows between streamed
 * transactions: each ends once a streamed event waits, or once it took its time.
 */
class BackfillWindowBurstTests {

	private static final TableId TABLE = TableId.parse("public.items");

	private static final Lsn HIGH = Lsn.of(0x1000);

	private final RecordingDownstream downstream = new RecordingDownstream();

	private final BackfillWindow window = new BackfillWindow(new Host(), 10_000, this.downstream,
			new BackfillSettings(1000, BackfillSettings.DEFAULT_WATERMARK_TABLE,
					BackfillSettings.DEFAULT_PROGRESS_TABLE, () -> DriverManager.getConnection("jdbc:unused"), false,
					BackfillSettings.DEFAULT_MAX_QUEUED),
			170000);

	@Test
	void aBurstEndsAfterItsTimeWithRowsLeftForTheNext() throws Exception {
		closeChunkOf(1000);
		assertThat(this.downstream.slices).hasSize(1);
		// Each slice takes longer than a burst may: one slice a call.
		this.downstream.sliceMillis = 2;
		this.window.deliverPending(() -> false);
		assertThat(this.downstream.slices).hasSize(2);
		assertThat(this.window.hasPending()).isTrue();
		this.window.deliverPending(() -> false);
		assertThat(this.downstream.slices).hasSize(3);
		assertThat(this.window.hasPending()).isTrue();
	}

	@Test
	void burstsDeliverEveryRowInKeyOrderAndNoneWhileAStreamedEventWaits() throws Exception {
		closeChunkOf(1000);
		this.window.deliverPending(() -> true);
		assertThat(this.downstream.slices).hasSize(1);
		int calls = 0;
		while (this.window.hasPending()) {
			this.window.deliverPending(() -> false);
			calls++;
		}
		assertThat(calls).isBetween(1, 3);
		List<Object> ids = new ArrayList<>();
		this.downstream.slices.forEach((slice) -> slice.forEach((row) -> ids.add(row.change().after().get("id"))));
		assertThat(ids).hasSize(1000);
		assertThat(ids).isSortedAccordingTo((a, b) -> Integer.compare((Integer) a, (Integer) b));
		assertThat(this.downstream.slices).allSatisfy((slice) -> assertThat(slice).hasSizeLessThanOrEqualTo(256));
	}

	/** Reads a chunk of rows and commits its high watermark: the first slice goes. */
	private void closeChunkOf(int rows) throws InterruptedException {
		BackfillTable table = BackfillTables.keyedByFirst(TABLE, List.of("id", "v"));
		OpenChunk chunk = this.window.open("b/0/1", table);
		List<BackfillRow> read = new ArrayList<>();
		Row.Columns columns = Row.columns(List.of("id", "v"));
		for (int id = 1; id <= rows; id++) {
			read.add(new BackfillRow(Row.of(columns, new Object[] { id, id * 10 }), List.of(id), id, 8));
		}
		chunk.rows(new BackfillChunk(read, List.of(Integer.toString(rows)), ReadVisibility.parse("10:10:")));
		Instant now = Instant.now();
		this.window.deliver(new Event.Begin(11, HIGH, now, 0));
		this.window.deliver(new Event.MessageArrived(new LogicalMessage(Watermarks.PREFIX,
				chunk.high().getBytes(StandardCharsets.UTF_8), true, Lsn.of(0xF00)), 0));
		this.window.deliver(new Event.Commit(11, HIGH, Lsn.of(0x1010), now, null, 0, 0));
	}

	private static final class RecordingDownstream implements Downstream {

		private final AckWindow acks = new AckWindow((lsn) -> {
		}, "slot");

		final List<List<Event.ChangeArrived>> slices = new ArrayList<>();

		volatile long sliceMillis;

		private boolean inTransaction;

		@Override
		public void deliver(Event event) {
			if (event instanceof Event.Begin) {
				this.inTransaction = true;
			}
			else if (event instanceof Event.Commit) {
				this.inTransaction = false;
			}
		}

		@Override
		public boolean inTransaction() {
			return this.inTransaction;
		}

		@Override
		public AckWindow.Entry snapshot(List<Event.ChangeArrived> rows, Lsn point, Instant time)
				throws InterruptedException {
			for (Event.ChangeArrived row : rows) {
				assertThat(row.change().operation()).isEqualTo(Operation.SNAPSHOT);
				assertThat(row.change().commitLsn()).isEqualTo(HIGH);
			}
			this.slices.add(List.copyOf(rows));
			TimeUnit.MILLISECONDS.sleep(this.sliceMillis);
			return this.acks.snapshot(point);
		}

		@Override
		public void chunkDone(ChunkMark mark) {
			throw new AssertionError("Not effect-once");
		}

	}

	private static final class Host implements BackfillHost {

		@Override
		public String slotName() {
			return "slot";
		}

		@Override
		public String publicationName() {
			return "publication";
		}

		@Override
		public boolean canRetry(int failedAttempts) {
			return false;
		}

		@Override
		public Duration retryBackOff(int failedAttempts) {
			return Duration.ZERO;
		}

		@Override
		public Duration reconnectBackOff(int failedAttempts) {
			return Duration.ZERO;
		}

		@Override
		public boolean streaming() {
			return true;
		}

		@Override
		public boolean ended() {
			return false;
		}

		@Override
		public String describe(Throwable failure) {
			return failure.getClass().getName();
		}

		@Override
		public void started(BackfillJob backfill) {
		}

		@Override
		public void completed(BackfillJob backfill) {
		}

		@Override
		public boolean effectOnce() {
			return false;
		}

		@Override
		public Map<Integer, ChunkMark> chunkMarks(String backfillId) {
			return Map.of();
		}

		@Override
		public void forgetChunkMarks(String backfillId) {
		}

	}

}
