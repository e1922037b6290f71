package io.postlog.benchmarks;

import java.util.concurrent.TimeUnit;

import io.postlog.Row;
import io.postlog.pgoutput.RowDecoder;
import io.postlog.types.ValueDecoders;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Assembling a {@link Row} from a six-column tuple (bigint, int, text, timestamptz,
 * numeric, jsonb), as the consumer does for every insert; one operation is one row.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RowDecoderBenchmark {

	private RowDecoder decoder;

	@Setup
	public void setUp() {
		this.decoder = new RowDecoder(ValueDecoders.standard());
		this.decoder.relation(SixColumns.RELATION);
	}

	@Benchmark
	public Row newRowText() {
		return this.decoder.newRow(SixColumns.RELATION_ID, SixColumns.TEXT_TUPLE);
	}

	@Benchmark
	public Row newRowBinary() {
		return this.decoder.newRow(SixColumns.RELATION_ID, SixColumns.BINARY_TUPLE);
	}

}
