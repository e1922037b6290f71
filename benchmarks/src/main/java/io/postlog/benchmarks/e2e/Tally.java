package io.postlog.benchmarks.e2e;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Counts the changes a leg receives, times the first and the last, and, in latency mode,
 * keeps each change's commit-to-invocation delay. Besides the rates it reports the time
 * of the second half of the changes, this JVM's CPU time from the first change to the
 * last and over the second half ({@code window_cpu_s}, {@code second_half_cpu_s}), the
 * server's and the Kafka broker's process's over the same first-to-last window when
 * run-e2e.sh names them ({@code server_window_cpu_s}, {@code broker_window_cpu_s}), the
 * JIT compilers' time ({@code jit_s}) and the time of each tenth of the changes
 * ({@code RATE_TENTHS}). {@link #record} is called by one thread (the leg's listener);
 * {@link #awaitAndReport} by another.
 */
public final class Tally {

	private static final Clock CLOCK = Clock.systemUTC();

	private static final int TENTHS = 10;

	private final String leg;

	private final long expected;

	private final long @org.jspecify.annotations.Nullable [] latencyMicros;

	private final CountDownLatch done = new CountDownLatch(1);

	private volatile long count;

	private volatile long firstNanos;

	private volatile long lastNanos;

	private volatile long lastEpochMillis;

	private volatile long lastCommitEpochMillis;

	private long sink;

	private long warmupChanges;

	/** When each tenth of the expected changes was complete, for {@code RATE_TENTHS}. */
	private final long[] tenthNanos = new long[TENTHS];

	/** The JIT compilers' time when the warm-up ended, in latency mode. */
	private volatile long jitMillisAtWarmup = -1;

	private volatile long allocatedAtFirst = -1;

	/**
	 * This JVM's CPU time at the first change, at the end of the first half and at the
	 * last, in nanoseconds ({@code -1} where unknown).
	 */
	private final long[] cpuNanos = { -1, -1, -1 };

	/**
	 * The server's and the Kafka broker's CPU seconds at the first change and at the
	 * last, when run-e2e.sh names their processes ({@code BENCH_SERVER_PID}, the
	 * postmaster; {@code BENCH_BROKER_PID}): the machine's other work over the same
	 * window as {@code window_cpu_s}.
	 */
	private final double[][] others = { { -1, -1 }, { -1, -1 } };

	/**
	 * Creates a tally.
	 * @param leg the leg's name, printed in the result
	 * @param expected how many changes the leg must receive
	 * @param latency whether to keep commit-to-invocation delays
	 */
	public Tally(String leg, long expected, boolean latency) {
		this.leg = leg;
		this.expected = expected;
		this.latencyMicros = latency ? new long[(int) expected] : null;
	}

	/**
	 * Records one change.
	 * @param commitTime its transaction's commit time, for latency mode
	 * @param touched a value derived from every column, so the work is not optimised away
	 */
	public void record(Instant commitTime, long touched) {
		long latency = 0;
		if (this.latencyMicros != null) {
			Instant now = CLOCK.instant();
			latency = (now.getEpochSecond() - commitTime.getEpochSecond()) * 1_000_000L
					+ (now.getNano() - commitTime.getNano()) / 1_000;
		}
		this.lastCommitEpochMillis = commitTime.toEpochMilli();
		record(latency, touched);
	}

	/**
	 * Records one change whose latency is already known.
	 * @param latencyMicros commit-to-invocation delay in microseconds (ignored outside
	 * latency mode)
	 * @param touched a value derived from every column
	 */
	public void record(long latencyMicros, long touched) {
		long n = this.count;
		long now = System.nanoTime();
		if (n == 0) {
			this.firstNanos = now;
			this.allocatedAtFirst = allocatedBytes();
			this.cpuNanos[0] = cpuNanos();
			readOthers(0);
		}
		if (this.latencyMicros != null && n < this.latencyMicros.length) {
			this.latencyMicros[(int) n] = latencyMicros;
		}
		this.sink += touched;
		this.lastNanos = now;
		long tenth = Math.max(1, this.expected / TENTHS);
		if ((n + 1) % tenth == 0 && (n + 1) / tenth <= TENTHS) {
			this.tenthNanos[(int) ((n + 1) / tenth) - 1] = now;
			if ((n + 1) / tenth == TENTHS / 2) {
				this.cpuNanos[1] = cpuNanos();
			}
		}
		this.count = n + 1;
		if (n + 1 == this.warmupChanges) {
			this.jitMillisAtWarmup = jitMillis();
		}
		if (n + 1 == this.expected) {
			this.cpuNanos[2] = cpuNanos();
			readOthers(1);
			this.lastEpochMillis = System.currentTimeMillis();
			this.done.countDown();
		}
	}

	/**
	 * Waits for the expected number of changes, then one more second to catch extra ones,
	 * and prints the {@code RESULT} line.
	 * @param timeout how long to wait
	 * @return the process exit status: 0, or 1 when the count is wrong
	 * @throws InterruptedException if interrupted
	 */
	public int awaitAndReport(Duration timeout) throws InterruptedException {
		boolean reached = this.done.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
		if (reached) {
			Thread.sleep(1000);
		}
		long received = this.count;
		if (received != this.expected) {
			System.out.println("FAILED leg=" + this.leg + " expected=" + this.expected + " received=" + received
					+ (reached ? " (more than expected)" : " (timed out after " + timeout.toSeconds() + " s)"));
			return 1;
		}
		double firstToLast = (this.lastNanos - this.firstNanos) / 1e9;
		double wall = (this.lastEpochMillis - ManagementFactory.getRuntimeMXBean().getStartTime()) / 1e3;
		StringBuilder line = new StringBuilder();
		line.append(String.format(Locale.ROOT, "RESULT leg=%s changes=%d first_to_last_s=%.3f wall_s=%.3f", this.leg,
				received, firstToLast, wall));
		// The second half of the changes, once the JVM's start (the JIT compiling the
		// leg's path while it runs) is behind it: the sustained rate.
		line.append(String.format(Locale.ROOT, " second_half_s=%.3f",
				(this.lastNanos - this.tenthNanos[TENTHS / 2 - 1]) / 1e9));
		if (this.cpuNanos[0] >= 0 && this.cpuNanos[1] >= 0 && this.cpuNanos[2] >= 0) {
			// This JVM's CPU from the first change to the last, and over the second half:
			// over the same times, the cores the leg kept busy.
			line.append(String.format(Locale.ROOT, " window_cpu_s=%.2f second_half_cpu_s=%.2f",
					(this.cpuNanos[2] - this.cpuNanos[0]) / 1e9, (this.cpuNanos[2] - this.cpuNanos[1]) / 1e9));
		}
		appendOther(line, "server_window_cpu_s", this.others[0]);
		appendOther(line, "broker_window_cpu_s", this.others[1]);
		long jit = jitMillis();
		if (jit >= 0) {
			// The JIT compilers' time until now, which on two cores is taken from the
			// walsender and the server; in latency mode also after the warm-up.
			line.append(String.format(Locale.ROOT, " jit_s=%.1f", jit / 1e3));
			if (this.jitMillisAtWarmup >= 0) {
				line.append(String.format(Locale.ROOT, " steady_jit_s=%.2f", (jit - this.jitMillisAtWarmup) / 1e3));
			}
		}
		if (this.lastCommitEpochMillis != 0) {
			// Commit of the last change's transaction to that change at the listener;
			// server and client share the machine's clock.
			line.append(" commit_to_last_ms=").append(this.lastEpochMillis - this.lastCommitEpochMillis);
		}
		if (this.latencyMicros != null) {
			line.append(latency("", this.latencyMicros.clone()));
			// Without the first changes, which meet the JIT warming up in both the leg
			// and
			// the writer (and the writer's catch-up burst after it fell behind).
			int skip = (int) Math.min(this.warmupChanges, this.latencyMicros.length - 1);
			line.append(latency("steady_", Arrays.copyOfRange(this.latencyMicros, skip, this.latencyMicros.length)));
		}
		long allocated = allocatedBytes() - this.allocatedAtFirst;
		if (this.allocatedAtFirst >= 0 && allocated > 0) {
			// Every live thread's allocation from the first change on (the Thread.sleep
			// above allocates nothing worth counting), over the changes.
			line.append(String.format(Locale.ROOT, " alloc_bytes_per_change=%.0f", (double) allocated / received));
		}
		line.append(" sink=").append(this.sink & 0xFF);
		System.out.println(line);
		if (this.latencyMicros != null) {
			System.out.println(slices(this.latencyMicros, 30));
		}
		System.out.println(tenths());
		return 0;
	}

	/**
	 * Returns the JIT compilers' time so far in milliseconds, or {@code -1} if unknown.
	 */
	private static long jitMillis() {
		CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
		return (jit != null && jit.isCompilationTimeMonitoringSupported()) ? jit.getTotalCompilationTime() : -1;
	}

	private void readOthers(int at) {
		long server = pid("BENCH_SERVER_PID");
		long broker = pid("BENCH_BROKER_PID");
		this.others[0][at] = (server > 0) ? CpuClock.serverSeconds(server) : -1;
		this.others[1][at] = (broker > 0) ? CpuClock.processSeconds(broker) : -1;
	}

	private static long pid(String variable) {
		String value = System.getenv(variable);
		return (value != null && !value.isBlank()) ? Long.parseLong(value.trim()) : -1;
	}

	private static void appendOther(StringBuilder line, String field, double[] seconds) {
		if (seconds[0] >= 0 && seconds[1] >= 0) {
			line.append(String.format(Locale.ROOT, " %s=%.2f", field, seconds[1] - seconds[0]));
		}
	}

	/**
	 * Returns this JVM's CPU time so far in nanoseconds, or {@code -1} if unknown.
	 */
	static long cpuNanos() {
		return (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os)
				? os.getProcessCpuTime() : -1;
	}

	/**
	 * Returns the bytes allocated so far by the live threads of this JVM.
	 */
	private static long allocatedBytes() {
		if (!(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads)
				|| !threads.isThreadAllocatedMemorySupported()) {
			return -1;
		}
		long total = 0;
		for (long bytes : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
			total += Math.max(0, bytes);
		}
		return total;
	}

	/**
	 * The milliseconds each tenth of the changes took, the first from the first change:
	 * whether a leg's rate is steady or it loses its time at the start.
	 */
	private String tenths() {
		StringBuilder line = new StringBuilder("RATE_TENTHS ms=");
		long from = this.firstNanos;
		for (int i = 0; i < TENTHS; i++) {
			line.append((i > 0) ? "," : "").append((this.tenthNanos[i] - from) / 1_000_000);
			from = this.tenthNanos[i];
		}
		return line.toString();
	}

	/**
	 * The largest latency in each of {@code count} equal runs of changes, in arrival
	 * order: at a steady rate, one slice per second of a 30 s run, so that a stall shows
	 * where it was.
	 */
	private static String slices(long[] micros, int count) {
		StringBuilder line = new StringBuilder("LATENCY_SLICES max_ms=");
		int size = Math.max(1, micros.length / count);
		for (int from = 0; from < micros.length; from += size) {
			long max = 0;
			for (int i = from; i < Math.min(micros.length, from + size); i++) {
				max = Math.max(max, micros[i]);
			}
			line.append((from > 0) ? "," : "").append(max / 1000);
		}
		return line.toString();
	}

	private static String latency(String prefix, long[] micros) {
		Arrays.sort(micros);
		return String.format(Locale.ROOT, " %sp50_ms=%.2f %sp99_ms=%.2f %smax_ms=%.2f", prefix,
				percentile(micros, 0.50) / 1e3, prefix, percentile(micros, 0.99) / 1e3, prefix,
				micros[micros.length - 1] / 1e3);
	}

	/**
	 * Sets how many of the first changes the steady-state latency leaves out.
	 * @param changes the number of changes
	 * @return this tally
	 */
	public Tally warmup(long changes) {
		this.warmupChanges = changes;
		return this;
	}

	private static long percentile(long[] sorted, double fraction) {
		int index = (int) Math.ceil(fraction * sorted.length) - 1;
		return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
	}

	/**
	 * Parses the common arguments: {@code key=value} pairs.
	 * @param args the arguments
	 * @param key the key
	 * @param fallback the value when absent, or {@code null} to require it
	 * @return the value
	 */
	public static String arg(String[] args, String key, @org.jspecify.annotations.Nullable String fallback) {
		for (String arg : args) {
			if (arg.startsWith(key + "=")) {
				return arg.substring(key.length() + 1);
			}
		}
		if (fallback == null) {
			throw new IllegalArgumentException("Missing argument " + key + "=...");
		}
		return fallback;
	}

}
