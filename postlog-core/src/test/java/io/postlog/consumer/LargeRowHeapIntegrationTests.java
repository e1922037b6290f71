package io.postlog.consumer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;

import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.test.crash.ChildJvm;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A snapshot or backfill row passes in the heap the stream needs for it. One row holds
 * {@value #SIZE} bytes of text and as many of {@code bytea} (both stored
 * {@code EXTERNAL}, uncompressed), scaled down from the 100 MB + 100 MB the limit was
 * found with so that the test takes about a minute: every path holds a few whole-value
 * buffers of the row at once (the message that carries it, each value decoded), so what
 * it needs is a multiple of the row's size and the comparison between paths holds at any
 * size. A {@link LargeRowChild} receives the row in a child JVM (serial collector) from
 * the stream, through an initial snapshot and through a backfill, each at the same
 * {@code -Xmx} of {@value #HEAP}. With text values (the row travels as about 3 ×
 * {@value #SIZE} bytes, bytea in hex) that heap is close to the stream's own need: at
 * {@value #HEAP_TOO_SMALL} the stream fails with an {@link OutOfMemoryError}, as the
 * first step shows. Before snapshot and backfill rows were decoded from slices of the
 * COPY message, the text snapshot failed at {@value #HEAP}. Binary values (about 2 ×
 * {@value #SIZE} bytes on the wire) go through another reader, which passes at the same
 * heap. Below the row's need ({@value #HEAP_FAR_TOO_SMALL}) the snapshot and the backfill
 * fail the consumer with the {@link OutOfMemoryError}, never retrying it.
 */
@PostgresTest
class LargeRowHeapIntegrationTests {

	private static final int SIZE = 20_000_000;

	private static final String HEAP = "130m";

	private static final String HEAP_TOO_SMALL = "100m";

	private static final String HEAP_FAR_TOO_SMALL = "60m";

	@Test
	void aTextRowPassesTheSnapshotAndABackfillInTheHeapTheStreamNeeds(PostgresDatabase database) throws Exception {
		create(database, "large_text");
		assertThat(run(database, "large_text", "stream", false, HEAP_TOO_SMALL)).as("the stream, below its heap")
			.contains("state FAILED")
			.contains("java.lang.OutOfMemoryError");
		assertPassed(run(database, "large_text", "stream", false, HEAP), "INSERT");
		assertPassed(run(database, "large_text", "snapshot", false, HEAP), "SNAPSHOT");
		assertPassed(run(database, "large_text", "backfill", false, HEAP), "SNAPSHOT");
		// Below the row's need an OutOfMemoryError fails the consumer at once, on the
		// snapshot's and on the backfill's thread alike (the backfill's once waited for
		// ever on the connection its COPY still held).
		for (String mode : List.of("snapshot", "backfill")) {
			assertThat(run(database, "large_text", mode, false, HEAP_FAR_TOO_SMALL)).as("the %s, below its heap", mode)
				.contains("state FAILED")
				.contains("java.lang.OutOfMemoryError");
		}
	}

	@Test
	void aBinaryRowPassesTheSnapshotAndABackfillInTheHeapTheStreamPassesIn(PostgresDatabase database) throws Exception {
		create(database, "large_binary");
		assertPassed(run(database, "large_binary", "stream", true, HEAP), "INSERT");
		assertPassed(run(database, "large_binary", "snapshot", true, HEAP), "SNAPSHOT");
		assertPassed(run(database, "large_binary", "backfill", true, HEAP), "SNAPSHOT");
	}

	private static void create(PostgresDatabase database, String table) {
		database.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, body text, data bytea)",
				"ALTER TABLE " + table + " ALTER COLUMN body SET STORAGE EXTERNAL",
				"ALTER TABLE " + table + " ALTER COLUMN data SET STORAGE EXTERNAL");
	}

	/**
	 * Runs a child that receives the table's row in the given way; in {@code stream} mode
	 * the row is inserted once the child streams, else it is there already.
	 */
	private static String run(PostgresDatabase database, String table, String mode, boolean binary, String heap)
			throws Exception {
		Path directory = Files.createDirectories(Paths.get("target", "large-row-test"));
		if (mode.equals("stream")) {
			// Before the slot exists: the stream carries the INSERT alone.
			database.execute("DELETE FROM " + table);
		}
		String output;
		try (ChildJvm child = ChildJvm.of(LargeRowChild.class)
			.heap(heap)
			.args(database.jdbcUrl(), database.username(), table, mode, binary)
			.start(directory.resolve(table + "-" + mode + "-" + heap + ".log"))) {
			if (mode.equals("stream")) {
				child.awaitOutput("streaming", Duration.ofSeconds(60));
				database.execute("INSERT INTO " + table + " VALUES (1, repeat('x', " + SIZE + "), decode(repeat('ab', "
						+ SIZE + "), 'hex'))");
			}
			assertThat(child.awaitExit(Duration.ofMinutes(2))).as("child: %s", child.describe()).isZero();
			output = child.output();
		}
		database.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '"
				+ table + "_slot'");
		return output;
	}

	private static void assertPassed(String output, String operation) {
		assertThat(output).as(output)
			.doesNotContain("OutOfMemoryError")
			.contains("row " + operation + " " + SIZE + ":" + textHash() + " " + SIZE + ":" + byteaHash())
			.contains("state RUNNING");
	}

	/** The {@link String#hashCode()} of {@link #SIZE} times {@code x}. */
	private static int textHash() {
		int hash = 0;
		for (int i = 0; i < SIZE; i++) {
			hash = 31 * hash + 'x';
		}
		return hash;
	}

	/** The {@link java.util.Arrays#hashCode(byte[])} of {@link #SIZE} bytes 0xAB. */
	private static int byteaHash() {
		int hash = 1;
		for (int i = 0; i < SIZE; i++) {
			hash = 31 * hash + (byte) 0xAB;
		}
		return hash;
	}

}
