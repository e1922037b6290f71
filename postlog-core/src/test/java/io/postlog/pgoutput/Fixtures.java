package io.postlog.pgoutput;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The pgoutput messages {@link PgOutputFixturesIntegrationTests} captured, one file per
 * message under {@code pgoutput/pg<major>/}; names starting {@code in-stream-} arrived
 * between Stream Start and Stream Stop.
 */
final class Fixtures {

	private Fixtures() {
	}

	record Fixture(String name, byte[] bytes) {

		boolean inStreamBlock() {
			return name.substring(name.indexOf('/') + 1).startsWith("in-stream-");
		}

		PgOutputMessage decode() {
			return PgOutputDecoder.decode(ByteBuffer.wrap(this.bytes), inStreamBlock());
		}

		@Override
		public String toString() {
			return this.name;
		}

	}

	static List<Fixture> all() {
		Path root = root();
		try (Stream<Path> files = Files.walk(root)) {
			List<Fixture> fixtures = files.filter((file) -> file.toString().endsWith(".bin"))
				.sorted()
				.map((file) -> load(root.relativize(file).toString().replace('\\', '/').replace(".bin", "")))
				.toList();
			if (fixtures.isEmpty()) {
				throw new IllegalStateException("No fixtures under " + root);
			}
			return fixtures;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static Fixture load(String name) {
		try {
			return new Fixture(name, Files.readAllBytes(root().resolve(name + ".bin")));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static Path root() {
		URL url = Fixtures.class.getResource("/pgoutput");
		if (url == null) {
			throw new IllegalStateException("No pgoutput fixtures on the class path");
		}
		try {
			return Path.of(url.toURI());
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
