package io.postlog.pgoutput;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;

import io.postlog.pgoutput.Fixtures.Fixture;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Whatever bytes arrive, the decoder returns a message or raises
 * {@link PgOutputDecodingException}, within a few seconds, and nothing else.
 */
class PgOutputDecoderPropertyTests {

	private static final List<Fixture> FIXTURES = Fixtures.all();

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	@Property(tries = 5000)
	void decodeOfArbitraryBytesOnlyRaisesDecodingException(@ForAll @Size(max = 64) byte[] bytes,
			@ForAll boolean inStreamBlock) {
		assertDecodesOrRaisesDecodingException(bytes, inStreamBlock);
	}

	@Property(tries = 5000)
	void decodeOfArbitraryBytesBehindAKnownTagOnlyRaisesDecodingException(@ForAll("tags") byte tag,
			@ForAll @Size(max = 64) byte[] rest, @ForAll boolean inStreamBlock) {
		byte[] bytes = new byte[rest.length + 1];
		bytes[0] = tag;
		System.arraycopy(rest, 0, bytes, 1, rest.length);
		assertDecodesOrRaisesDecodingException(bytes, inStreamBlock);
	}

	@Property(tries = 10000)
	void decodeOfMutatedFixtureOnlyRaisesDecodingException(@ForAll("mutatedFixtures") Mutated mutated) {
		assertDecodesOrRaisesDecodingException(mutated.bytes(), mutated.inStreamBlock());
	}

	@Provide
	Arbitrary<Byte> tags() {
		return Arbitraries.of(MessageTag.values()).map((tag) -> (byte) tag.code());
	}

	@Provide
	Arbitrary<Mutated> mutatedFixtures() {
		Arbitrary<Fixture> fixture = Arbitraries.of(FIXTURES);
		Arbitrary<List<Mutation>> mutations = Combinators
			.combine(Arbitraries.integers().between(0, 2), Arbitraries.integers().greaterOrEqual(0),
					Arbitraries.bytes())
			.as(Mutation::new)
			.list()
			.ofMinSize(1)
			.ofMaxSize(4);
		return Combinators.combine(fixture, mutations).as((chosen, changes) -> {
			byte[] bytes = chosen.bytes().clone();
			for (Mutation mutation : changes) {
				bytes = mutation.apply(bytes);
			}
			return new Mutated(bytes, chosen.inStreamBlock());
		});
	}

	private static void assertDecodesOrRaisesDecodingException(byte[] bytes, boolean inStreamBlock) {
		// jqwik refuses JUnit's @Timeout on properties, so every try gets its own bound.
		Throwable thrown = assertTimeoutPreemptively(TIMEOUT,
				() -> catchThrowable(() -> PgOutputDecoder.decode(ByteBuffer.wrap(bytes), inStreamBlock)));
		if (thrown != null) {
			assertThat(thrown).isExactlyInstanceOf(PgOutputDecodingException.class);
			PgOutputDecodingException ex = (PgOutputDecodingException) thrown;
			assertThat(ex.offset()).isBetween(0, bytes.length);
		}
	}

	/** Flips, inserts or removes one byte. */
	record Mutation(int kind, int position, byte value) {

		byte[] apply(byte[] bytes) {
			if (bytes.length == 0) {
				return (this.kind == 1) ? new byte[] { this.value } : bytes;
			}
			int index = this.position % bytes.length;
			if (this.kind == 0) {
				byte[] flipped = bytes.clone();
				flipped[index] ^= (this.value != 0) ? this.value : 1;
				return flipped;
			}
			if (this.kind == 1) {
				byte[] inserted = new byte[bytes.length + 1];
				System.arraycopy(bytes, 0, inserted, 0, index);
				inserted[index] = this.value;
				System.arraycopy(bytes, index, inserted, index + 1, bytes.length - index);
				return inserted;
			}
			byte[] removed = new byte[bytes.length - 1];
			System.arraycopy(bytes, 0, removed, 0, index);
			System.arraycopy(bytes, index + 1, removed, index, bytes.length - index - 1);
			return removed;
		}

	}

	record Mutated(byte[] bytes, boolean inStreamBlock) {

	}

}
