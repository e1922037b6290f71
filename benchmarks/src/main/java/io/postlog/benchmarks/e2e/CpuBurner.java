package io.postlog.benchmarks.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A load beside a benchmark leg: a JVM of its own that keeps a given share of the
 * machine's cores busy, for {@link BackfillLeg}'s floor with the backfill's CPU. Run as
 * {@code CpuBurner <cores>}; it prints {@value #BURNING} once its threads run, and ends
 * with its parent JVM.
 */
public final class CpuBurner {

	private static final long BURN_PERIOD_NANOS = 10_000_000;

	/** What the burner prints once its threads run. */
	private static final String BURNING = "burning";

	private static final int BURNER_START_SECONDS = 30;

	private CpuBurner() {
	}

	public static void main(String[] args) throws InterruptedException {
		ProcessHandle.current().parent().ifPresent((parent) -> parent.onExit().thenRun(() -> System.exit(0)));
		burn(Double.parseDouble(args[0]));
	}

	/**
	 * Starts a JVM of its own that keeps {@code cores} of this machine's cores busy (see
	 * {@link #burn}): the CPU the backfill took beyond the paced copy's, as a load beside
	 * the copy, so that the copy's leg shows what a stream gets from a machine this busy
	 * without any of the backfill's work in its JVM. Returns once its threads burn (its
	 * JVM's start-up is not the load), within {@value #BURNER_START_SECONDS} s. Ended by
	 * {@link Process#destroy()}.
	 */
	static Process start(double cores) throws Exception {
		String java = ProcessHandle.current().info().command().orElse("java");
		Process burner = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				CpuBurner.class.getName(), Double.toString(cores))
			.redirectError(ProcessBuilder.Redirect.INHERIT)
			.start();
		BufferedReader output = new BufferedReader(
				new InputStreamReader(burner.getInputStream(), StandardCharsets.US_ASCII));
		String ready;
		try {
			ready = CompletableFuture.supplyAsync(() -> {
				try {
					return output.readLine();
				}
				catch (IOException ex) {
					throw new UncheckedIOException(ex);
				}
			}).get(BURNER_START_SECONDS, TimeUnit.SECONDS);
		}
		catch (TimeoutException ex) {
			burner.destroy();
			throw new IllegalStateException("The burner did not start within " + BURNER_START_SECONDS + " s", ex);
		}
		if (!BURNING.equals(ready)) {
			burner.destroy();
			throw new IllegalStateException("The burner did not start: " + ready);
		}
		return burner;
	}

	/** The CPU seconds a burner took so far. */
	static double cpuSeconds(Process process) {
		return process.info().totalCpuDuration().orElse(Duration.ZERO).toNanos() / 1e9;
	}

	/**
	 * Keeps {@code cores} cores busy: as many threads as whole cores it rounds up to,
	 * each spinning until it has had its share of every 10 ms in CPU time (not wall time,
	 * so that a thread the scheduler holds back still takes its share once it runs, as
	 * the backfill's threads do) or the 10 ms are over, and sleeping the rest. Allocates
	 * nothing.
	 */
	private static void burn(double cores) throws InterruptedException {
		int threads = Math.max(1, (int) Math.ceil(cores));
		long busy = (long) (cores / threads * BURN_PERIOD_NANOS);
		ThreadMXBean clock = ManagementFactory.getThreadMXBean();
		List<Thread> burners = new ArrayList<>();
		for (int i = 0; i < threads; i++) {
			Thread thread = new Thread(() -> {
				long next = System.nanoTime();
				while (true) {
					long until = clock.getCurrentThreadCpuTime() + busy;
					next += BURN_PERIOD_NANOS;
					while (clock.getCurrentThreadCpuTime() < until && System.nanoTime() < next) {
						Thread.onSpinWait();
					}
					long wait = next - System.nanoTime();
					if (wait > 0) {
						try {
							TimeUnit.NANOSECONDS.sleep(wait);
						}
						catch (InterruptedException ex) {
							return;
						}
					}
				}
			}, "burner-" + i);
			thread.start();
			burners.add(thread);
		}
		System.out.println(BURNING);
		System.out.flush();
		for (Thread thread : burners) {
			thread.join();
		}
	}

}
