package io.postlog.benchmarks;

import java.util.concurrent.TimeUnit;

import io.postlog.types.ValueDecoders;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Decoding the six values of one row (bigint, int, text, timestamptz, numeric, jsonb) by
 * type OID; one operation is one row's worth of values.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ValueDecodersBenchmark {

	private final ValueDecoders decoders = ValueDecoders.standard();

	@Benchmark
	public void decodeText(Blackhole blackhole) {
		for (int i = 0; i < SixColumns.OIDS.length; i++) {
			blackhole.consume(this.decoders.decodeText(SixColumns.OIDS[i], SixColumns.TEXT[i]));
		}
	}

	@Benchmark
	public void decodeBinary(Blackhole blackhole) {
		for (int i = 0; i < SixColumns.OIDS.length; i++) {
			blackhole.consume(this.decoders.decodeBinary(SixColumns.OIDS[i], SixColumns.BINARY[i]));
		}
	}

}
