package io.postlog.consumer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

import io.postlog.consumer.spill.SpillDirectory;
import io.postlog.consumer.spill.SpillDirectoryException;
import io.postlog.consumer.spill.StreamedTransactions;
import io.postlog.consumer.spill.StreamingOptions;
import io.postlog.test.crash.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.postlog.consumer.spill.StreamMessages.block;
import static io.postlog.consumer.spill.StreamMessages.insert;
import static io.postlog.consumer.spill.StreamMessages.relation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Spill directories under a shared root: a new stream removes what stopped consumers left
 * behind, and only that.
 */
class SpillDirectoryTests {

	@TempDir
	Path root;

	private StreamedTransactions streams(String label) {
		return new StreamedTransactions(new StreamingOptions(0, this.root, 1 << 20), label);
	}

	@Test
	void checkCreatesAMissingRootAndLeavesItEmpty() {
		Path missing = this.root.resolve("a").resolve("spill");
		SpillDirectory.check(missing);
		assertThat(missing).isEmptyDirectory();
	}

	@Test
	void checkRefusesARegularFileNamingPathAndReason() throws IOException {
		Path file = Files.writeString(this.root.resolve("spill"), "not a directory");
		assertThatExceptionOfType(SpillDirectoryException.class).isThrownBy(() -> SpillDirectory.check(file))
			.withMessage("Spill directory " + file + " cannot be used: it exists and is not a directory")
			.satisfies((ex) -> assertThat(ex.directory()).isEqualTo(file));
	}

	@Test
	void checkRefusesADirectoryThatCannotBeCreated() throws IOException {
		Path file = Files.writeString(this.root.resolve("file"), "not a directory");
		Path under = file.resolve("spill");
		assertThatExceptionOfType(SpillDirectoryException.class).isThrownBy(() -> SpillDirectory.check(under))
			.withMessageStartingWith(
					"Spill directory " + under + " cannot be used: it does not exist and cannot be " + "created (");
	}

	@Test
	void liveDirectoryOfAnotherStreamOfThisProcessIsKept() {
		try (StreamedTransactions first = streams("first")) {
			block(first, 1, true, 1, relation(), insert(1, "a"));
			Path directory = first.spillDirectory();
			assertThat(directory).isDirectory();
			try (StreamedTransactions second = streams("second")) {
				block(second, 2, true, 2, relation(), insert(2, "b"));
				assertThat(directory).isDirectory();
				assertThat(second.spillDirectory()).isDirectory().isNotEqualTo(directory);
			}
			assertThat(directory).isDirectory();
		}
		assertThat(this.root).isEmptyDirectory();
	}

	@Test
	void leftoversOfAKilledProcessAreRemovedAtTheNextStartAndALiveOnesAreNot() throws Exception {
		try (ChildJvm child = ChildJvm.of(SpillingProcess.class)
			.args(this.root)
			.start(this.root.resolveSibling("spilling-process.log"))) {
			String spilled = child.awaitLine(SpillingProcess.SPILLED, Duration.ofSeconds(60));
			Path directory = Path.of(spilled.substring(SpillingProcess.SPILLED.length()));
			assertThat(spillFiles(directory)).isNotEmpty();
			try (StreamedTransactions other = streams("other")) {
				assertThat(directory).as("the live child's directory").isDirectory();
			}
			child.kill();
			assertThat(directory).as("left behind by SIGKILL").isDirectory();
			try (StreamedTransactions next = streams("next")) {
				assertThat(directory).doesNotExist();
			}
			assertThat(this.root).isEmptyDirectory();
		}
	}

	@Test
	void emptyDirectoryWithoutALockFileIsRemoved() throws IOException {
		Path crashedWhileCreating = Files.createDirectory(this.root.resolve(SpillDirectory.PREFIX + "old-123"));
		Path unrelated = Files.createDirectory(this.root.resolve("unrelated"));
		try (StreamedTransactions streams = streams("next")) {
			assertThat(crashedWhileCreating).doesNotExist();
			assertThat(unrelated).isDirectory();
		}
	}

	private static java.util.List<Path> spillFiles(Path directory) throws IOException {
		try (Stream<Path> files = Files.list(directory)) {
			return files.filter((file) -> file.toString().endsWith(SpillDirectory.SUFFIX)).toList();
		}
	}

}
