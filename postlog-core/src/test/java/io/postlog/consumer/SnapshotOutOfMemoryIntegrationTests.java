package io.postlog.consumer;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;

import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.test.crash.ChildJvm;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An {@link OutOfMemoryError} in a snapshot reader fails the consumer at once: a child
 * JVM with a 64 MB heap snapshots a table whose one row holds 100 MB of text; the
 * consumer ends {@code FAILED} with the error in its cause, after one snapshot, instead
 * of wrapping it into a read failure that is retried with a new snapshot.
 */
@PostgresTest
class SnapshotOutOfMemoryIntegrationTests {

	@Test
	void anOutOfMemoryErrorInASnapshotReaderFailsTheConsumerAtOnce(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE oom_source (id int PRIMARY KEY, body text)",
				"ALTER TABLE oom_source ALTER COLUMN body SET STORAGE EXTERNAL",
				"INSERT INTO oom_source VALUES (1, repeat('x', 100000000))");
		Path directory = Files.createDirectories(Paths.get("target", "snapshot-oom-test"));
		try (ChildJvm child = ChildJvm.of(LargeRowChild.class)
			.heap("64m")
			.args(database.jdbcUrl(), database.username(), "oom_source")
			.start(directory.resolve("child.log"))) {
			assertThat(child.awaitExit(Duration.ofMinutes(2))).as("child: %s", child.describe()).isZero();
			String output = child.output();
			assertThat(output).as(output).contains("state FAILED").contains("java.lang.OutOfMemoryError");
			assertThat(output.split("snapshot-started", -1)).as("snapshots begun").hasSize(2);
		}
		database.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots");
	}

}
