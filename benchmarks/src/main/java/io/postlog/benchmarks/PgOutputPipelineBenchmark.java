package io.postlog.benchmarks;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.postlog.Row;
import io.postlog.pgoutput.PgOutputDecoder;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.PgOutputMessage.Column;
import io.postlog.pgoutput.PgOutputMessage.Relation;
import io.postlog.pgoutput.RowDecoder;
import io.postlog.pgoutput.TupleData;
import io.postlog.types.PgType;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;
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
 * The consumer's per-change work on one core: captured pgoutput bytes of
 * {@code bench_rows(id bigint primary key, a int, b text, c timestamptz, d numeric(12,2), e jsonb)}
 * decoded with {@link PgOutputDecoder}, assembled into rows with {@link RowDecoder} and
 * every value read by column name. The mix is the end-to-end workload's: 10 inserts, 2
 * updates (new row) and 1 delete (key-only old row). One operation is one change, so the
 * score is changes per second per core.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PgOutputPipelineBenchmark {

	static final int CHANGES_PER_MIX = 13;

	private ByteBuffer[] text;

	private ByteBuffer[] binary;

	private RowDecoder rows;

	@Setup
	public void setUp() {
		this.text = mix(PgOutputDecoderBenchmark.load("text"));
		this.binary = mix(PgOutputDecoderBenchmark.load("binary"));
		int relationId = ((PgOutputMessage.Insert) PgOutputDecoder.decode(this.binary[0])).relationId();
		this.rows = new RowDecoder(ValueDecoders.standard());
		this.rows.relation(relation(relationId));
	}

	static Relation relation(int relationId) {
		return new Relation(null, relationId, "public", "bench_rows", 'd',
				List.of(new Column(1, "id", PgType.INT8, -1), new Column(0, "a", PgType.INT4, -1),
						new Column(0, "b", PgType.TEXT, -1), new Column(0, "c", PgType.TIMESTAMPTZ, -1),
						new Column(0, "d", PgType.NUMERIC, (12 << 16 | 2) + 4), new Column(0, "e", PgType.JSONB, -1)));
	}

	private static ByteBuffer[] mix(ByteBuffer[] insertUpdateDelete) {
		ByteBuffer[] mix = new ByteBuffer[CHANGES_PER_MIX];
		for (int i = 0; i < 10; i++) {
			mix[i] = insertUpdateDelete[0];
		}
		mix[10] = insertUpdateDelete[1];
		mix[11] = insertUpdateDelete[1];
		mix[12] = insertUpdateDelete[2];
		return mix;
	}

	@Benchmark
	@OperationsPerInvocation(CHANGES_PER_MIX)
	public void text(Blackhole blackhole) {
		run(this.text, blackhole);
	}

	@Benchmark
	@OperationsPerInvocation(CHANGES_PER_MIX)
	public void binary(Blackhole blackhole) {
		run(this.binary, blackhole);
	}

	private void run(ByteBuffer[] messages, Blackhole blackhole) {
		for (ByteBuffer message : messages) {
			touch(change(PgOutputDecoder.decodeRetaining(message, false)), blackhole);
		}
	}

	@Nullable Row change(PgOutputMessage message) {
		if (message instanceof PgOutputMessage.Insert insert) {
			return this.rows.newRow(insert.relationId(), insert.newTuple());
		}
		if (message instanceof PgOutputMessage.Update update) {
			TupleData key = update.keyTuple();
			if (key != null) {
				this.rows.oldRow(update.relationId(), key, true);
			}
			return this.rows.newRow(update.relationId(), update.newTuple());
		}
		if (message instanceof PgOutputMessage.Delete delete) {
			TupleData key = delete.keyTuple();
			TupleData old = delete.oldTuple();
			return (key != null) ? this.rows.oldRow(delete.relationId(), key, true)
					: this.rows.oldRow(delete.relationId(), old, false);
		}
		return null;
	}

	private static void touch(@Nullable Row row, Blackhole blackhole) {
		if (row == null) {
			return;
		}
		// By index: an iterator would be the benchmark's own allocation, not postlog's.
		List<String> columns = row.columns();
		for (int i = 0; i < columns.size(); i++) {
			blackhole.consume(row.get(columns.get(i)));
		}
	}

	ByteBuffer[] messages(boolean binary) {
		return binary ? this.binary : this.text;
	}

}
