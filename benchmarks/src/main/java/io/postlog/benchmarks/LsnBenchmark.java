package io.postlog.benchmarks;

import java.util.concurrent.TimeUnit;

import io.postlog.Lsn;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Parsing and printing WAL positions, which the consumer does for every status update.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class LsnBenchmark {

	private final String text = "16/B374D848";

	private final Lsn lsn = Lsn.parse(this.text);

	@Benchmark
	public Lsn parse() {
		return Lsn.parse(this.text);
	}

	@Benchmark
	public String print() {
		return this.lsn.toString();
	}

}
