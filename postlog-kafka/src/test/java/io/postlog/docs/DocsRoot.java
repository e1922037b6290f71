package io.postlog.docs;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The project's root directory, the nearest one up from the working directory that holds
 * {@code mvnw} and {@code docs}.
 */
final class DocsRoot {

	private DocsRoot() {
	}

	static Path find() {
		Path directory = Path.of("").toAbsolutePath();
		while (directory != null) {
			if (Files.isRegularFile(directory.resolve("mvnw")) && Files.isDirectory(directory.resolve("docs"))) {
				return directory;
			}
			directory = directory.getParent();
		}
		throw new IllegalStateException("No directory with mvnw and docs above " + Path.of("").toAbsolutePath());
	}

}
