package io.postlog.test.crash;

import java.time.Duration;
import java.util.Random;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

/**
 * The seed a crash proof draws its kill points (and its writer's choices) from, so that a
 * failing run can be replayed: {@code -Dpostlog.crash.seed=N} replays seed {@code N},
 * otherwise each run picks a new one. Registered as a JUnit extension
 * ({@code @RegisterExtension static final KillLoop killLoop = new KillLoop();}) it prints
 * the seed before each test and puts it at the head of every failure of the test method.
 * Thread-safe: each {@link #random(String) stream} is a new {@link Random}, the same for
 * the same seed and name.
 */
public final class KillLoop implements BeforeEachCallback, TestExecutionExceptionHandler {

	/**
	 * The system property that replays a seed.
	 */
	public static final String SEED_PROPERTY = "postlog.crash.seed";

	private final long seed;

	/**
	 * Creates a kill loop with the seed {@link #SEED_PROPERTY} names, or a new one.
	 */
	public KillLoop() {
		this(seedFromProperty());
	}

	/**
	 * Creates a kill loop with a given seed.
	 * @param seed the seed
	 */
	public KillLoop(long seed) {
		this.seed = seed;
	}

	private static long seedFromProperty() {
		String replayed = System.getProperty(SEED_PROPERTY);
		return (replayed != null && !replayed.isBlank()) ? Long.parseLong(replayed.trim())
				: new Random().nextLong() ^ System.nanoTime();
	}

	/**
	 * Returns the seed.
	 * @return the seed
	 */
	public long seed() {
		return this.seed;
	}

	/**
	 * Says how to replay this run, for logs and failure messages.
	 * @return for example {@code crash seed 42 (replay with -Dpostlog.crash.seed=42)}
	 */
	public String replay() {
		return "crash seed " + this.seed + " (replay with -D" + SEED_PROPERTY + "=" + this.seed + ")";
	}

	/**
	 * Returns a new random stream derived from the seed and a name: the kill points and
	 * the writer draw from streams of their own, so that one does not shift the other.
	 * @param stream the stream's name, for example {@code kills} or {@code writer}
	 * @return a random generator, the same sequence for the same seed and name
	 */
	public Random random(String stream) {
		return new Random(this.seed ^ (stream.hashCode() * 0x9E3779B97F4A7C15L));
	}

	/**
	 * Draws a time between two bounds from a stream.
	 * @param random the stream
	 * @param fromMillis the shortest time, in milliseconds
	 * @param spreadMillis how much longer it may be, in milliseconds (exclusive)
	 * @return {@code fromMillis} plus a uniform draw below {@code spreadMillis}
	 */
	public static Duration between(Random random, long fromMillis, int spreadMillis) {
		return Duration.ofMillis(fromMillis + random.nextInt(spreadMillis));
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		String test = context.getRequiredTestClass().getSimpleName() + "." + context.getDisplayName();
		System.out.println("[crash] " + test + ": " + replay());
	}

	@Override
	public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
		if (throwable instanceof TestAbortedException) {
			throw throwable;
		}
		AssertionError failure = new AssertionError("[" + replay() + "] " + throwable, throwable);
		failure.setStackTrace(throwable.getStackTrace());
		throw failure;
	}

}
