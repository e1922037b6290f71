package io.postlog.benchmarks.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * How long some of this JVM's threads waited for a core: the kernel's per-thread
 * scheduler statistics ({@code /proc/self/task/<tid>/schedstat}: time on a CPU, time
 * runnable but waiting on a run queue, and the number of times the thread was given a
 * CPU), summed over the threads whose name starts with one of the given prefixes (the
 * kernel keeps the first 15 characters of a name). On a machine whose cores are all busy,
 * a thread that wakes for a change waits its turn; this says how long, beside the latency
 * it adds to. Linux only; on another system every reading is zero.
 */
final class RunQueue {

	private final List<String> prefixes;

	RunQueue(List<String> prefixes) {
		this.prefixes = List.copyOf(prefixes);
	}

	/** Returns per thread id: nanoseconds on a CPU, nanoseconds waiting, times run. */
	Map<String, long[]> now() {
		Map<String, long[]> threads = new HashMap<>();
		Path tasks = Path.of("/proc/self/task");
		if (!Files.isDirectory(tasks)) {
			return threads;
		}
		try (Stream<Path> all = Files.list(tasks)) {
			for (Path task : (Iterable<Path>) all::iterator) {
				try {
					String name = Files.readString(task.resolve("comm")).strip();
					if (this.prefixes.stream().noneMatch(name::startsWith)) {
						continue;
					}
					String[] fields = Files.readString(task.resolve("schedstat")).strip().split(" ");
					threads.put(task.getFileName().toString(), new long[] { Long.parseLong(fields[0]),
							Long.parseLong(fields[1]), Long.parseLong(fields[2]) });
				}
				catch (IOException ex) {
					// The thread ended between the listing and the reading: not counted.
				}
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot list this JVM's threads", ex);
		}
		return threads;
	}

	/**
	 * Returns the {@code RESULT} fields for the time since {@code before}:
	 * {@code stream_cpu_ms}, {@code stream_wait_ms} and {@code stream_runs} of the
	 * threads, and the mean wait per run in microseconds
	 * ({@code stream_wait_us_per_run}).
	 */
	String since(Map<String, long[]> before) {
		long cpu = 0;
		long wait = 0;
		long runs = 0;
		for (Map.Entry<String, long[]> thread : now().entrySet()) {
			long[] earlier = before.getOrDefault(thread.getKey(), new long[3]);
			cpu += thread.getValue()[0] - earlier[0];
			wait += thread.getValue()[1] - earlier[1];
			runs += thread.getValue()[2] - earlier[2];
		}
		return String.format(Locale.ROOT,
				" stream_cpu_ms=%.1f stream_wait_ms=%.1f stream_runs=%d stream_wait_us_per_run=%.1f", cpu / 1e6,
				wait / 1e6, runs, (runs > 0) ? wait / 1e3 / runs : 0);
	}

}
