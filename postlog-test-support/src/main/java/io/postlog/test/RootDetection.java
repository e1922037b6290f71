package io.postlog.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Tells whether this process runs as root, where PostgreSQL refuses to start.
 */
final class RootDetection {

	private static final boolean ROOT = detect();

	private RootDetection() {
	}

	static boolean isRoot() {
		return ROOT;
	}

	private static boolean detect() {
		Path status = Path.of("/proc/self/status");
		if (!Files.isReadable(status)) {
			return "root".equals(System.getProperty("user.name"));
		}
		try {
			// "Uid:\t<real>\t<effective>\t<saved>\t<fs>"; PostgreSQL checks the effective
			// one.
			return Files.readAllLines(status)
				.stream()
				.filter((line) -> line.startsWith("Uid:"))
				.map((line) -> line.split("\\s+")[2])
				.anyMatch("0"::equals);
		}
		catch (IOException ex) {
			return "root".equals(System.getProperty("user.name"));
		}
	}

}
