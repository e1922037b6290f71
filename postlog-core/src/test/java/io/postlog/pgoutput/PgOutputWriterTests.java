package io.postlog.pgoutput;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

import io.postlog.Lsn;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PgOutputWriterTests {

	private static final Instant TIME = Instant.parse("2024-05-06T07:08:09.123456Z");

	private static final TupleData ROW = new TupleData(
			List.of(new TupleValue.Text("42".getBytes(StandardCharsets.UTF_8)), TupleValue.NULL,
					TupleValue.UNCHANGED_TOAST, new TupleValue.Binary(new byte[] { 1, 2 })));

	@Test
	void everyWrittenMessageDecodesToItself() {
		List<PgOutputMessage> messages = List.of(new PgOutputMessage.Begin(Lsn.of(0x1_0000_0010L), TIME, 7),
				new PgOutputMessage.Commit(0, Lsn.of(0x1_0000_0010L), Lsn.of(0x1_0000_0040L), TIME),
				new PgOutputMessage.Origin(Lsn.of(0x99), "elsewhere"),
				new PgOutputMessage.Relation(null, 16384, "public", "orders", 'd', List.of(
						new PgOutputMessage.Column(1, "id", 23, -1), new PgOutputMessage.Column(0, "note", 25, -1),
						new PgOutputMessage.Column(0, "big", 25, -1), new PgOutputMessage.Column(0, "raw", 17, -1))),
				new PgOutputMessage.Type(null, 70000, "public", "mood"), new PgOutputMessage.Insert(null, 16384, ROW),
				new PgOutputMessage.Update(null, 16384, ROW, null, ROW),
				new PgOutputMessage.Update(null, 16384, null, ROW, ROW),
				new PgOutputMessage.Update(null, 16384, null, null, ROW),
				new PgOutputMessage.Delete(null, 16384, ROW, null), new PgOutputMessage.Delete(null, 16384, null, ROW),
				new PgOutputMessage.Truncate(null, 3, List.of(16384, 16390)),
				new PgOutputMessage.Message(null, true, Lsn.of(0x55), "audit", new byte[] { 0, 1, 2 }),
				new PgOutputMessage.StreamStart(12, true), new PgOutputMessage.StreamStop(),
				new PgOutputMessage.StreamCommit(12, 0, Lsn.of(0x1_0000_0010L), Lsn.of(0x1_0000_0040L), TIME),
				new PgOutputMessage.StreamAbort(12, 13, null, null),
				new PgOutputMessage.StreamAbort(12, 12, Lsn.of(0x77), TIME));
		for (PgOutputMessage message : messages) {
			assertThat(PgOutputDecoder.decode(ByteBuffer.wrap(PgOutputWriter.write(message)))).isEqualTo(message);
		}
	}

	@Test
	void beginIsWrittenAsTheProtocolLaysItOut() {
		byte[] bytes = PgOutputWriter.write(new PgOutputMessage.Begin(Lsn.of(0x0102030405060708L),
				Instant.parse("2000-01-01T00:00:01Z"), 0x0A0B0C0D));
		assertThat(bytes).containsExactly('B', 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0x0F, 0x42, 0x40, 0x0A, 0x0B,
				0x0C, 0x0D);
	}

}
