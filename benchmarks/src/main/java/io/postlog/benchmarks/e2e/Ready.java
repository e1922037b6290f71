package io.postlog.benchmarks.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Tells the script that a leg is streaming, by creating the file named by {@code ready=},
 * so that the latency run's writer starts only then.
 */
final class Ready {

	private Ready() {
	}

	static void signal(String[] args) throws IOException {
		String file = Tally.arg(args, "ready", "");
		if (!file.isEmpty()) {
			Files.writeString(Path.of(file), "ready\n");
		}
	}

}
