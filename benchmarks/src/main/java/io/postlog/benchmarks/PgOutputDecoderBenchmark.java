package io.postlog.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import io.postlog.pgoutput.PgOutputDecoder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Decoding pgoutput change messages captured from PostgreSQL 17: an Insert, an Update and
 * a Delete of a six-column table (bigint, int, text, timestamptz, numeric, jsonb), in
 * text and in binary format. One operation is one message.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PgOutputDecoderBenchmark {

	private static final String[] CHANGES = { "insert", "update", "delete" };

	private ByteBuffer[] text;

	private ByteBuffer[] binary;

	@Setup
	public void load() {
		this.text = load("text");
		this.binary = load("binary");
	}

	static ByteBuffer[] load(String format) {
		ByteBuffer[] messages = new ByteBuffer[CHANGES.length];
		for (int i = 0; i < CHANGES.length; i++) {
			String resource = "/pgoutput/bench-" + CHANGES[i] + "-" + format + ".bin";
			try (InputStream input = PgOutputDecoderBenchmark.class.getResourceAsStream(resource)) {
				if (input == null) {
					throw new IllegalStateException("Missing " + resource);
				}
				messages[i] = ByteBuffer.wrap(input.readAllBytes());
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return messages;
	}

	@Benchmark
	@OperationsPerInvocation(3)
	public void text(Blackhole blackhole) {
		for (ByteBuffer message : this.text) {
			blackhole.consume(PgOutputDecoder.decode(message));
		}
	}

	@Benchmark
	@OperationsPerInvocation(3)
	public void binary(Blackhole blackhole) {
		for (ByteBuffer message : this.binary) {
			blackhole.consume(PgOutputDecoder.decode(message));
		}
	}

}
