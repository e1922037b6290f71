package io.postlog.decoder;

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
 * The wal2json and pglogical_output payloads {@link PluginFixturesIntegrationTests}
 * captured, one file per payload under {@code decoders/<plugin>/pg<major>/}, and the
 * stateless parse of each into its plugin's message record.
 */
final class PluginFixtures {

	private PluginFixtures() {
	}

	record Fixture(String plugin, String name, byte[] bytes) {

		/** The payload's message record; throws {@link PluginDecodingException}. */
		Object parse() {
			return parse(this.bytes);
		}

		Object parse(byte[] payload) {
			return "wal2json".equals(this.plugin) ? Wal2JsonParser.parse(payload)
					: PgLogicalWireDecoder.decode(ByteBuffer.wrap(payload));
		}

		@Override
		public String toString() {
			return this.plugin + "/" + this.name;
		}

	}

	static List<Fixture> all() {
		return Stream.concat(of("wal2json").stream(), of("pglogical").stream()).toList();
	}

	static List<Fixture> of(String plugin) {
		Path root = root(plugin);
		try (Stream<Path> files = Files.walk(root)) {
			List<Fixture> fixtures = files.filter(Files::isRegularFile)
				.sorted()
				.map((file) -> load(plugin, root.relativize(file).toString().replace('\\', '/')))
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

	static Fixture load(String plugin, String name) {
		try {
			return new Fixture(plugin, name, Files.readAllBytes(root(plugin).resolve(name)));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static Path root(String plugin) {
		URL url = PluginFixtures.class.getResource("/decoders/" + plugin);
		if (url == null) {
			throw new IllegalStateException("No " + plugin + " fixtures on the class path");
		}
		try {
			return Path.of(url.toURI());
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
