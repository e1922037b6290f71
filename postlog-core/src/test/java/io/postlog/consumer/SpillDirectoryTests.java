package io.postlog.consumer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.postlog.consumer.spill.SpillDirectory;
import io.postlog.consumer.spill.SpillDirectoryException;
import io.postlog.consumer.spill.StreamedTransactions;
import io.postlog.consumer.spill.StreamingOptions;
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
		String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
		Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				SpillingProcess.class.getName(), this.root.toString())
			.redirectErrorStream(true)
			.start();
		try {
			Path directory = spilledDirectory(child);
			assertThat(spillFiles(directory)).isNotEmpty();
			try (StreamedTransactions other = streams("other")) {
				assertThat(directory).as("the live child's directory").isDirectory();
			}
			child.destroyForcibly();
			assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
			assertThat(directory).as("left behind by SIGKILL").isDirectory();
			try (StreamedTransactions next = streams("next")) {
				assertThat(directory).doesNotExist();
			}
			assertThat(this.root).isEmptyDirectory();
		}
		finally {
			child.destroyForcibly();
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

	private static Path spilledDirectory(Process child) throws IOException {
		BufferedReader output = new BufferedReader(
				new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
		String line;
		StringBuilder seen = new StringBuilder();
		while ((line = output.readLine()) != null) {
			if (line.startsWith(SpillingProcess.SPILLED)) {
				return Path.of(line.substring(SpillingProcess.SPILLED.length()));
			}
			seen.append(line).append('\n');
		}
		throw new AssertionError("The child ended before it spilled:\n" + seen);
	}

	private static java.util.List<Path> spillFiles(Path directory) throws IOException {
		try (Stream<Path> files = Files.list(directory)) {
			return files.filter((file) -> file.toString().endsWith(SpillDirectory.SUFFIX)).toList();
		}
	}

}
