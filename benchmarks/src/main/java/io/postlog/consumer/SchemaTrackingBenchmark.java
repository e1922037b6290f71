package io.postlog.consumer;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.postlog.consumer.delivery.Event;
import io.postlog.pgoutput.PgOutputDecoder;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.RowDecoder;
import io.postlog.schema.SchemaTracker;
import io.postlog.types.PgType;
import io.postlog.types.ValueDecoders;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What tracking schema changes costs a table with no DDL (issue 29: "a table with no DDL
 * keeps its throughput"): the consumer's assembler turning captured pgoutput bytes of
 * {@code bench_rows} into events, one transaction of the end-to-end mix (10 inserts, 2
 * updates, 1 delete) per invocation, with and without a {@link SchemaTracker} (the one a
 * {@code @PgSchemaListener} or a change listener taking {@code SchemaChange} installs).
 * The table's Relation message is assembled once, in the set-up, as the stream sends it
 * once per session; the tracker takes it as the starting shape. One operation is one
 * change. Lives in the consumer's package because the assembler is internal.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(3)
public class SchemaTrackingBenchmark {

	private static final int CHANGES = 13;

	/** Whether the assembler tracks the tables' shapes. */
	@Param({ "false", "true" })
	public boolean tracking;

	private ByteBuffer[] transaction;

	private PgOutputAssembler assembler;

	@Setup
	public void setUp() {
		ByteBuffer insert = load("insert");
		ByteBuffer update = load("update");
		ByteBuffer delete = load("delete");
		int relationId = ((PgOutputMessage.Insert) PgOutputDecoder.decode(insert.duplicate())).relationId();
		this.transaction = new ByteBuffer[CHANGES + 2];
		this.transaction[0] = begin();
		for (int i = 1; i <= 10; i++) {
			this.transaction[i] = insert;
		}
		this.transaction[11] = update;
		this.transaction[12] = update;
		this.transaction[13] = delete;
		this.transaction[14] = commit();
		this.assembler = new PgOutputAssembler("bench_slot", new RowDecoder(ValueDecoders.standard()), false);
		if (this.tracking) {
			this.assembler.trackingSchemas(new SchemaTracker(null));
		}
		List<Event> events = this.assembler.assemble(relation(relationId));
		if (!events.isEmpty()) {
			throw new IllegalStateException("The first shape of a table is no schema change: " + events);
		}
	}

	@Benchmark
	@OperationsPerInvocation(CHANGES)
	public void assemble(Blackhole blackhole) {
		for (ByteBuffer message : this.transaction) {
			blackhole.consume(this.assembler.assemble(message.duplicate()));
		}
	}

	ByteBuffer[] transaction() {
		return this.transaction;
	}

	PgOutputAssembler assembler() {
		return this.assembler;
	}

	private static ByteBuffer load(String change) {
		String resource = "/pgoutput/bench-" + change + "-binary.bin";
		try (InputStream input = SchemaTrackingBenchmark.class.getResourceAsStream(resource)) {
			if (input == null) {
				throw new IllegalStateException("Missing " + resource);
			}
			return ByteBuffer.wrap(input.readAllBytes());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** pgoutput's Begin: final LSN, commit time, xid. */
	private static ByteBuffer begin() {
		return message((out) -> {
			out.writeByte('B');
			out.writeLong(0x1000000L);
			out.writeLong(800_000_000_000_000L);
			out.writeInt(1234);
		});
	}

	/** pgoutput's Commit: flags, commit LSN, end LSN, commit time. */
	private static ByteBuffer commit() {
		return message((out) -> {
			out.writeByte('C');
			out.writeByte(0);
			out.writeLong(0x1000000L);
			out.writeLong(0x1000100L);
			out.writeLong(800_000_000_000_000L);
		});
	}

	/**
	 * pgoutput's Relation of {@code public.bench_rows}, as the captured changes have it.
	 */
	private static ByteBuffer relation(int relationId) {
		return message((out) -> {
			out.writeByte('R');
			out.writeInt(relationId);
			cstring(out, "public");
			cstring(out, "bench_rows");
			out.writeByte('d');
			Object[][] columns = { { 1, "id", PgType.INT8, -1 }, { 0, "a", PgType.INT4, -1 },
					{ 0, "b", PgType.TEXT, -1 }, { 0, "c", PgType.TIMESTAMPTZ, -1 },
					{ 0, "d", PgType.NUMERIC, (12 << 16 | 2) + 4 }, { 0, "e", PgType.JSONB, -1 } };
			out.writeShort(columns.length);
			for (Object[] column : columns) {
				out.writeByte((Integer) column[0]);
				cstring(out, (String) column[1]);
				out.writeInt((Integer) column[2]);
				out.writeInt((Integer) column[3]);
			}
		});
	}

	private static void cstring(DataOutputStream out, String value) throws IOException {
		out.write(value.getBytes(StandardCharsets.UTF_8));
		out.writeByte(0);
	}

	private static ByteBuffer message(Writer writer) {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		try (DataOutputStream out = new DataOutputStream(bytes)) {
			writer.write(out);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return ByteBuffer.wrap(bytes.toByteArray());
	}

	private interface Writer {

		void write(DataOutputStream out) throws IOException;

	}

}
