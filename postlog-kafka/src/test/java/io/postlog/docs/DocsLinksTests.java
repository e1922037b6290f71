package io.postlog.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link in {@code README.md} and {@code docs/*.md} names a file that
 * exists, and a link to a heading ({@code page.md#heading}, {@code #heading}) names a
 * heading of that page, by GitHub's anchor rule. Links to other sites are not followed.
 */
class DocsLinksTests {

	private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

	private static final Pattern FENCE = Pattern.compile("(?ms)^```.*?^```");

	@Test
	void everyRelativeLinkResolves() throws IOException {
		Path root = DocsRoot.find();
		List<Path> pages = new ArrayList<>();
		pages.add(root.resolve("README.md"));
		try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		List<String> broken = new ArrayList<>();
		for (Path page : pages) {
			String text = FENCE.matcher(Files.readString(page)).replaceAll("");
			Matcher link = LINK.matcher(text);
			while (link.find()) {
				String target = link.group(1);
				if (target.matches("^[a-z]+:.*")) {
					continue;
				}
				int hash = target.indexOf('#');
				String file = (hash < 0) ? target : target.substring(0, hash);
				String anchor = (hash < 0) ? null : target.substring(hash + 1);
				Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
				String where = root.relativize(page) + ": " + target;
				if (!Files.exists(resolved)) {
					broken.add(where + " (no such file)");
				}
				else if (anchor != null && resolved.toString().endsWith(".md")
						&& !anchors(Files.readString(resolved)).contains(anchor)) {
					broken.add(where + " (no such heading)");
				}
			}
		}
		assertThat(pages).hasSizeGreaterThan(5);
		assertThat(broken).as("broken links").isEmpty();
	}

	private static Set<String> anchors(String markdown) {
		Set<String> anchors = new HashSet<>();
		for (String line : FENCE.matcher(markdown).replaceAll("").split("\\R")) {
			if (line.startsWith("#")) {
				String heading = line.replaceFirst("^#+\\s*", "").strip();
				String anchor = heading.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
				String unique = anchor;
				for (int i = 1; anchors.contains(unique); i++) {
					unique = anchor + "-" + i;
				}
				anchors.add(unique);
			}
		}
		return anchors;
	}

}
