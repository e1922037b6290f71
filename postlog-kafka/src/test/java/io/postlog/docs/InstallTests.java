package io.postlog.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the README and docs tell a user to install is what the build makes: the BOM
 * manages every published module at the project's version, the README imports it, and
 * each test shown in {@code docs/testing.md} under a {@code <!-- the code of ... -->}
 * marker is that test file's code.
 */
class InstallTests {

	private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");

	private static final Pattern MANAGED = Pattern
		.compile("<artifactId>([^<]+)</artifactId>\\s*<version>([^<]+)</version>");

	private static final Pattern SNIPPET = Pattern.compile("(?s)<!-- the code of (\\S+) -->\\s*```java\\n(.*?)```");

	@Test
	void bomManagesEveryPublishedModuleAtTheProjectsVersion() throws Exception {
		Path root = DocsRoot.find();
		String parent = Files.readString(root.resolve("pom.xml"));
		String version = parent.replaceFirst("(?s).*?<artifactId>postlog-parent</artifactId>\\s*<version>([^<]+)<.*",
				"$1");
		List<String> published = new ArrayList<>();
		Matcher module = MODULE.matcher(parent);
		while (module.find()) {
			String name = module.group(1);
			if (name.startsWith("postlog-") && !name.equals("postlog-bom")) {
				published.add(name);
			}
		}
		String bom = Files.readString(root.resolve("postlog-bom/pom.xml"));
		List<String> managed = new ArrayList<>();
		Matcher entry = MANAGED
			.matcher(bom.substring(bom.indexOf("<dependencyManagement>"), bom.indexOf("</dependencyManagement>")));
		while (entry.find()) {
			managed.add(entry.group(1));
			assertThat(entry.group(2)).as("version of %s", entry.group(1)).isEqualTo(version);
		}
		assertThat(bom).contains("<artifactId>postlog-bom</artifactId>\n\t<version>" + version + "</version>");
		assertThat(managed).containsExactlyInAnyOrderElementsOf(published);
		String readme = Files.readString(root.resolve("README.md"));
		assertThat(readme).contains("<artifactId>postlog-bom</artifactId>",
				"platform(\"io.postlog:postlog-bom:" + version);
	}

	@Test
	void testsShownInTheDocsAreTheCodeOfTheirFiles() throws Exception {
		Path root = DocsRoot.find();
		Matcher snippet = SNIPPET.matcher(Files.readString(root.resolve("docs/testing.md")));
		int found = 0;
		while (snippet.find()) {
			found++;
			String file = Files.readString(root.resolve(snippet.group(1)));
			String code = file.replaceFirst("package [^;]+;\\s*", "")
				.replaceFirst("(?s)/\\*\\*.*?\\*/\\s*(@|class)", "$1");
			assertThat(snippet.group(2).strip()).as(snippet.group(1)).isEqualTo(code.strip());
		}
		assertThat(found).isGreaterThanOrEqualTo(2);
	}

}
