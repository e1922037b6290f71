package io.postlog.docs;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Writes {@code docs/properties.md}, the table of every postlog configuration property,
 * from the Spring Boot configuration metadata the modules on the class path carry
 * ({@code META-INF/spring-configuration-metadata.json} of
 * {@code postlog-spring-boot-autoconfigure} and {@code postlog-kafka}), never from the
 * properties classes' source. A property is postlog's when its name starts with
 * {@code postlog.} or its source type is in {@code io.postlog}. The page is the same for
 * the same metadata: properties sorted by name, one row each.
 *
 * <p>
 * {@link PropertiesPageTests} fails when the checked-in page differs from what this
 * produces, and writes it with {@code -Dpostlog.docs.write=true}.
 */
final class PropertiesPage {

	static final String METADATA = "META-INF/spring-configuration-metadata.json";

	static final String REGENERATE = "./mvnw -B -ntp -q -pl postlog-kafka -am verify -DskipITs "
			+ "-Dtest=PropertiesPageTests -Dsurefire.failIfNoSpecifiedTests=false -Dpostlog.docs.write=true";

	private PropertiesPage() {
	}

	/**
	 * The page's Markdown, from every metadata file the class loader finds.
	 * @param classLoader where to look for the metadata
	 * @return the page
	 * @throws IOException if a metadata file cannot be read
	 */
	static String generate(ClassLoader classLoader) throws IOException {
		Map<String, JsonNode> properties = new TreeMap<>();
		Map<String, List<String>> hints = new LinkedHashMap<>();
		ObjectMapper mapper = new ObjectMapper();
		Enumeration<URL> resources = classLoader.getResources(METADATA);
		for (URL resource : Collections.list(resources)) {
			JsonNode metadata;
			try (InputStream in = resource.openStream()) {
				metadata = mapper.readTree(in);
			}
			for (JsonNode property : metadata.path("properties")) {
				if (isPostlogs(property)) {
					properties.putIfAbsent(property.path("name").asString(), property);
				}
			}
			for (JsonNode hint : metadata.path("hints")) {
				List<String> values = new ArrayList<>();
				for (JsonNode value : hint.path("values")) {
					values.add("`" + value.path("value").asString() + "`");
				}
				if (!values.isEmpty()) {
					hints.putIfAbsent(hint.path("name").asString(), values);
				}
			}
		}
		StringBuilder page = new StringBuilder();
		page.append("# Configuration properties\n\n");
		page.append("<!-- Generated from the configuration metadata by PropertiesPage (postlog-kafka's tests); "
				+ "do not edit. Regenerate: " + REGENERATE + " -->\n\n");
		page.append("Every property postlog's Spring Boot modules declare, from their configuration metadata ")
			.append("(`postlog-spring-boot-autoconfigure` and `postlog-kafka`). ")
			.append("A listener group's own settings, `postlog.groups.<name>.slot.name` and ")
			.append("`postlog.groups.<name>.publication.name` (both `postlog_<name>` by default), and its ")
			.append("`postlog.groups.<name>.filters.<table>.where` and `.columns`, sit below ")
			.append("`postlog.groups`. An empty default means none, or one that depends on other settings ")
			.append("(the description says which).\n\n");
		page.append("| property | type | default | description |\n");
		page.append("|---|---|---|---|\n");
		properties.values()
			.stream()
			.sorted(Comparator.comparing((JsonNode property) -> property.path("name").asString()))
			.forEach((property) -> {
				String name = property.path("name").asString();
				String description = property.path("description").asString("");
				List<String> values = hints.get(name);
				if (values != null) {
					description = (description.isEmpty() ? "" : description + " ") + "Values: "
							+ String.join(", ", values) + ".";
				}
				page.append("| `")
					.append(name)
					.append("` | ")
					.append(type(property.path("type").asString("")))
					.append(" | ")
					.append(defaultValue(property.path("defaultValue")))
					.append(" | ")
					.append(cell(description))
					.append(" |\n");
			});
		return page.toString();
	}

	/**
	 * Writes the page to a file.
	 * @param page the page's path
	 * @param classLoader where to look for the metadata
	 * @throws IOException if the metadata cannot be read or the page written
	 */
	static void write(Path page, ClassLoader classLoader) throws IOException {
		Files.writeString(page, generate(classLoader));
	}

	private static boolean isPostlogs(JsonNode property) {
		return property.path("name").asString("").startsWith("postlog.")
				|| property.path("sourceType").asString("").startsWith("io.postlog.");
	}

	/**
	 * The type by simple names ({@code Map<String,Group>}), so that moving a class to
	 * another package or out of its enclosing class leaves the page as it was.
	 */
	private static String type(String type) {
		String simple = type.replaceAll("\\b(?:[A-Za-z_]\\w*[.$])+([A-Za-z_]\\w*)", "$1");
		return simple.isEmpty() ? "" : "`" + simple.replace("|", "\\|") + "`";
	}

	private static String defaultValue(JsonNode value) {
		if (value.isMissingNode() || value.isNull()) {
			return "";
		}
		if (value.isArray()) {
			StringJoiner joined = new StringJoiner(",");
			value.forEach((element) -> joined.add(element.asString()));
			return "`" + cell(joined.toString()) + "`";
		}
		return "`" + cell(value.asString()) + "`";
	}

	private static String cell(String text) {
		return text.replace("\r", "").replace("\n", " ").replace("|", "\\|").replace("<", "&lt;").strip();
	}

}
