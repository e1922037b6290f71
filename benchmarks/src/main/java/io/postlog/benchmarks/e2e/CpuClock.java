package io.postlog.benchmarks.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The CPU time of this JVM and of the PostgreSQL server it talks to, so that a leg can
 * say how many cores it kept busy and where: whether a rate is bound by the machine's CPU
 * or by waiting. The server's is read from {@code /proc} (Linux only, the server on this
 * machine): the postmaster's own and its reaped children's time, and each live child's,
 * in clock ticks of {@value #TICKS_PER_SECOND} a second (Linux's {@code USER_HZ}).
 * Everything on the server counts, the stream's walsender and the benchmark's writer's
 * backend included, also during the wait at the end of a leg ({@link #settledServer()}),
 * where a stream leg's writer goes on (about 1% of such a leg's server time at 1,000
 * transactions a second). A reading also waits (up to a second) until no child of the
 * postmaster is a zombie, whose time would be in neither.
 */
final class CpuClock {

	private static final int TICKS_PER_SECOND = 100;

	private static final int SETTLE_MILLIS = 300;

	private final long postmaster;

	private CpuClock(long postmaster) {
		this.postmaster = postmaster;
	}

	/**
	 * Returns a clock for the server behind {@code url}: its postmaster is the parent of
	 * a backend.
	 */
	static CpuClock of(String url, String user) throws Exception {
		try (Connection connection = DriverManager.getConnection(url, user, null);
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT pg_backend_pid()")) {
			row.next();
			return new CpuClock(Long.parseLong(stat(row.getLong(1))[1]));
		}
	}

	/** Returns the CPU seconds so far: this JVM's and the server's. */
	double[] now() {
		long client = Tally.cpuNanos();
		for (int attempt = 0; attempt < 200; attempt++) {
			long ticks = serverTicks();
			if (ticks >= 0) {
				return new double[] { client / 1e9, (double) ticks / TICKS_PER_SECOND };
			}
			try {
				Thread.sleep(5);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted", ex);
			}
		}
		throw new IllegalStateException("A child of the server stayed a zombie for a second");
	}

	private long serverTicks() {
		return serverTicks(this.postmaster);
	}

	/**
	 * Returns the CPU seconds so far of the server whose postmaster has the given pid,
	 * waiting up to 50 ms for a child that exited to be reaped; {@code -1} if one was
	 * not.
	 */
	static double serverSeconds(long postmaster) {
		for (int attempt = 0; attempt < 50; attempt++) {
			long ticks = serverTicks(postmaster);
			if (ticks >= 0) {
				return (double) ticks / TICKS_PER_SECOND;
			}
			try {
				Thread.sleep(1);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return -1;
			}
		}
		return -1;
	}

	/**
	 * Returns the CPU seconds (user and system) a process has used so far, {@code -1} if
	 * it is gone.
	 */
	static double processSeconds(long pid) {
		String[] fields = stat(pid);
		return (fields != null) ? (double) (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND
				: -1;
	}

	/**
	 * The ticks so far of a server's processes: the postmaster's own and its reaped
	 * children's, and those of its children alive now; {@code -1} while a child is a
	 * zombie (its time in neither).
	 */
	private static long serverTicks(long postmaster) {
		long ticks = 0;
		String[] own = stat(postmaster);
		for (int field = 11; field <= 14; field++) {
			ticks += Long.parseLong(own[field]);
		}
		try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
			for (Path process : (Iterable<Path>) processes::iterator) {
				String name = process.getFileName().toString();
				if (!name.chars().allMatch(Character::isDigit)) {
					continue;
				}
				String[] fields = stat(Long.parseLong(name));
				if (fields != null && Long.parseLong(fields[1]) == postmaster) {
					if (fields[0].equals("Z")) {
						return -1;
					}
					ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
				}
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot list /proc", ex);
		}
		return ticks;
	}

	/**
	 * Returns the {@code RESULT} fields for the time since {@code before}:
	 * {@code client_cpu_s} and {@code server_cpu_s}, the server's read after
	 * {@link #settledServer()}.
	 */
	String since(double[] before) {
		double client = now()[0];
		return fields(before, client, settledServer());
	}

	/**
	 * Returns the server's CPU seconds so far, read {@value #SETTLE_MILLIS} ms from now:
	 * the time of a backend that exited just before shows in the postmaster's only once
	 * it has been reaped, and without a wait a leg that closed its sessions as it ended
	 * was seen to lose most of their time now and then.
	 */
	double settledServer() {
		try {
			Thread.sleep(SETTLE_MILLIS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
		return now()[1];
	}

	/**
	 * Returns the {@code RESULT} fields {@code client_cpu_s} and {@code server_cpu_s}
	 * from a reading before and the two seconds at the end.
	 */
	static String fields(double[] before, double client, double server) {
		return String.format(Locale.ROOT, " client_cpu_s=%.2f server_cpu_s=%.2f", client - before[0],
				server - before[1]);
	}

	/**
	 * The fields of {@code /proc/<pid>/stat} after the command's name: state first, then
	 * the parent's pid; {@code null} if the process is gone.
	 */
	private static String[] stat(long pid) {
		String text;
		try {
			text = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
		}
		catch (IOException ex) {
			return null;
		}
		return text.substring(text.lastIndexOf(')') + 2).trim().split(" ");
	}

}
