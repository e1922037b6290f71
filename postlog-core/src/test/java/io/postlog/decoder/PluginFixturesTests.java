package io.postlog.decoder;

import java.time.Duration;
import java.util.List;

import io.postlog.decoder.PluginFixtures.Fixture;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The captured wal2json and pglogical_output payloads parse, and go red when damaged:
 * every truncated prefix is a {@link PluginDecodingException}, every single flipped byte
 * one or a different record, and no mutation raises anything else.
 */
class PluginFixturesTests {

	private static final List<Fixture> FIXTURES = PluginFixtures.all();

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	@ParameterizedTest
	@MethodSource("io.postlog.decoder.PluginFixtures#all")
	void fixtureParses(Fixture fixture) {
		assertThat(fixture.parse()).isNotNull();
	}

	@ParameterizedTest
	@MethodSource("io.postlog.decoder.PluginFixtures#all")
	void everyTruncatedPrefixOfFixtureIsADecodingError(Fixture fixture) {
		for (int length = 0; length < fixture.bytes().length; length++) {
			byte[] prefix = java.util.Arrays.copyOf(fixture.bytes(), length);
			assertThat(catchThrowable(() -> fixture.parse(prefix))).as("prefix of %d bytes", length)
				.isInstanceOf(PluginDecodingException.class);
		}
	}

	@ParameterizedTest
	@MethodSource("io.postlog.decoder.PluginFixtures#all")
	void flippingAnyByteOfFixtureFailsOrChangesTheRecord(Fixture fixture) {
		Object original = fixture.parse();
		int rejected = 0;
		int changed = 0;
		for (int index = 0; index < fixture.bytes().length; index++) {
			byte[] mutated = fixture.bytes().clone();
			mutated[index] ^= (byte) 0xFF;
			try {
				assertThat(fixture.parse(mutated)).as("byte %d flipped", index).isNotEqualTo(original);
				changed++;
			}
			catch (PluginDecodingException ex) {
				rejected++;
			}
		}
		assertThat(rejected + changed).isEqualTo(fixture.bytes().length).isPositive();
	}

	@Property(tries = 10000)
	void mutatedFixtureOnlyEverRaisesDecodingException(@ForAll("mutated") Mutated mutated) {
		assertTimeoutPreemptively(TIMEOUT, () -> {
			Throwable thrown = catchThrowable(() -> mutated.fixture().parse(mutated.bytes()));
			if (thrown != null) {
				assertThat(thrown).isInstanceOf(PluginDecodingException.class);
			}
		});
	}

	@Provide
	Arbitrary<Mutated> mutated() {
		return Combinators
			.combine(Arbitraries.of(FIXTURES), Arbitraries.integers().greaterOrEqual(0), Arbitraries.bytes(),
					Arbitraries.integers().between(0, 2))
			.as((fixture, at, value, kind) -> {
				byte[] bytes = fixture.bytes();
				int index = at % bytes.length;
				byte[] out = switch (kind) {
					case 0 -> {
						byte[] copy = bytes.clone();
						copy[index] = value;
						yield copy;
					}
					case 1 -> {
						byte[] copy = new byte[bytes.length + 1];
						System.arraycopy(bytes, 0, copy, 0, index);
						copy[index] = value;
						System.arraycopy(bytes, index, copy, index + 1, bytes.length - index);
						yield copy;
					}
					default -> {
						byte[] copy = new byte[bytes.length - 1];
						System.arraycopy(bytes, 0, copy, 0, index);
						System.arraycopy(bytes, index + 1, copy, index, bytes.length - index - 1);
						yield copy;
					}
				};
				return new Mutated(fixture, out);
			});
	}

	record Mutated(Fixture fixture, byte[] bytes) {

		@Override
		public String toString() {
			return this.fixture + " (" + this.bytes.length + " bytes)";
		}

	}

}
