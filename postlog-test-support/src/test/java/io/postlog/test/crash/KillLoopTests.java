package io.postlog.test.crash;

import java.util.Random;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link KillLoop}: a seed replays its streams, the property replays a seed, and every
 * failure names the seed.
 */
class KillLoopTests {

	@Test
	void theSameSeedAndStreamReplayTheSameDraws() {
		KillLoop one = new KillLoop(42);
		KillLoop again = new KillLoop(42);
		assertThat(draws(one.random("kills"))).isEqualTo(draws(again.random("kills")));
		assertThat(draws(one.random("kills"))).isNotEqualTo(draws(one.random("writer")));
		assertThat(draws(one.random("kills"))).isNotEqualTo(draws(new KillLoop(43).random("kills")));
	}

	@Test
	void theSeedPropertyReplaysASeed() {
		String before = System.getProperty(KillLoop.SEED_PROPERTY);
		System.setProperty(KillLoop.SEED_PROPERTY, "-7");
		try {
			assertThat(new KillLoop().seed()).isEqualTo(-7);
		}
		finally {
			if (before != null) {
				System.setProperty(KillLoop.SEED_PROPERTY, before);
			}
			else {
				System.clearProperty(KillLoop.SEED_PROPERTY);
			}
		}
	}

	@Test
	void betweenStaysWithinItsBounds() {
		Random random = new KillLoop(1).random("kills");
		IntStream.range(0, 1000)
			.forEach((i) -> assertThat(KillLoop.between(random, 200, 3000).toMillis()).isBetween(200L, 3199L));
	}

	@Test
	void aFailureOfTheTestNamesTheSeedAndKeepsItsCause() {
		KillLoop loop = new KillLoop(99);
		AssertionError original = new AssertionError("3 keys lost");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> loop.handleTestExecutionException(null, original))
			.withMessageContaining("crash seed 99 (replay with -Dpostlog.crash.seed=99)")
			.withMessageContaining("3 keys lost")
			.withCause(original);
	}

	@Test
	void anAbortedTestStaysAborted() {
		TestAbortedException aborted = new TestAbortedException("no streaming on this server");
		assertThatExceptionOfType(TestAbortedException.class)
			.isThrownBy(() -> new KillLoop(1).handleTestExecutionException(null, aborted))
			.isSameAs(aborted);
	}

	private static int[] draws(Random random) {
		return IntStream.range(0, 20).map((i) -> random.nextInt(1000)).toArray();
	}

}
