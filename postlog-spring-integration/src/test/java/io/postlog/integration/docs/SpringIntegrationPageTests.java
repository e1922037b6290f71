package io.postlog.integration.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each flow {@code docs/spring-integration.md} shows under a
 * {@code <!-- the code of ... -->} marker is that file's code (without its package line
 * and class javadoc), so the docs show code that compiles and that a test runs.
 */
class SpringIntegrationPageTests {

	private static final Pattern SNIPPET = Pattern.compile("(?s)<!-- the code of (\\S+) -->\\s*```java\\n(.*?)```");

	@Test
	void flowsShownInTheDocsAreTheCodeOfTheirFiles() throws Exception {
		Path root = root();
		Matcher snippet = SNIPPET.matcher(Files.readString(root.resolve("docs/spring-integration.md")));
		int found = 0;
		while (snippet.find()) {
			found++;
			String file = Files.readString(root.resolve(snippet.group(1)));
			String code = file.replaceFirst("package [^;]+;\\s*", "")
				.replaceFirst("(?s)/\\*\\*.*?\\*/\\s*(@|class)", "$1");
			assertThat(snippet.group(2).strip()).as(snippet.group(1)).isEqualTo(code.strip());
		}
		assertThat(found).isEqualTo(1);
	}

	private static Path root() {
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
