package io.postlog.docs;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/properties.md} is what {@link PropertiesPage} makes of the configuration
 * metadata now: a property added, removed, or given another default or description
 * without regenerating the page fails the build. {@code -Dpostlog.docs.write=true}
 * rewrites the page instead.
 */
class PropertiesPageTests {

	@Test
	void propertiesPageIsGeneratedFromTheCurrentMetadata() throws Exception {
		Path page = DocsRoot.find().resolve("docs/properties.md");
		String generated = PropertiesPage.generate(getClass().getClassLoader());
		if (Boolean.getBoolean("postlog.docs.write")) {
			Files.writeString(page, generated);
		}
		assertThat(generated).contains("| `postlog.slot.name` |", "| `postlog.kafka.enabled` |");
		assertThat(Files.exists(page))
			.as("docs/properties.md is missing; generate it with: %s", PropertiesPage.REGENERATE)
			.isTrue();
		assertThat(Files.readString(page))
			.as("docs/properties.md differs from the configuration metadata; regenerate it with: %s",
					PropertiesPage.REGENERATE)
			.isEqualTo(generated);
	}

}
