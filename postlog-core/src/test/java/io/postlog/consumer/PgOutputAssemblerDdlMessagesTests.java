package io.postlog.consumer;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.postlog.SchemaChange;
import io.postlog.consumer.delivery.Event;
import io.postlog.pgoutput.RowDecoder;
import io.postlog.schema.DdlEvents;
import io.postlog.schema.SchemaTracker;
import io.postlog.types.PgType;
import io.postlog.types.ValueDecoders;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The messages of postlog's event triggers are a source of shapes only for a consumer
 * with DDL events on: another consumer of the same database may have installed the
 * triggers, and one that tracks shapes from Relation messages alone takes them as
 * ordinary logical messages.
 */
class PgOutputAssemblerDdlMessagesTests {

	private static final long COMMIT_LSN = 0x1000;

	@Test
	void withoutDdlEventsAPostlogDdlMessageIsAnOrdinaryMessage() throws IOException {
		List<Event> events = ddlMessage(new SchemaTracker(null));
		assertThat(events).singleElement()
			.isInstanceOfSatisfying(Event.MessageArrived.class,
					(arrived) -> assertThat(arrived.message().prefix()).isEqualTo(DdlEvents.PREFIX));
	}

	@Test
	void withDdlEventsAPostlogDdlMessageIsASchemaChange() throws IOException {
		List<Event> events = ddlMessage(new SchemaTracker(null).withDdlEvents());
		assertThat(events).singleElement()
			.isInstanceOfSatisfying(Event.SchemaChanged.class,
					(changed) -> assertThat(changed.schemaChange().kind()).isEqualTo(SchemaChange.Kind.CREATE_TABLE));
	}

	private static List<Event> ddlMessage(SchemaTracker tracker) throws IOException {
		PgOutputAssembler assembler = new PgOutputAssembler("slot", new RowDecoder(ValueDecoders.standard()), false)
			.trackingSchemas(tracker);
		assembler.assemble(begin());
		return assembler.assemble(message(DdlEvents.PREFIX, createTable()));
	}

	private static ByteBuffer begin() throws IOException {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		DataOutputStream out = new DataOutputStream(bytes);
		out.writeByte('B');
		out.writeLong(COMMIT_LSN);
		out.writeLong(0);
		out.writeInt(700);
		return ByteBuffer.wrap(bytes.toByteArray());
	}

	private static ByteBuffer message(String prefix, byte[] content) throws IOException {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream();
		DataOutputStream out = new DataOutputStream(bytes);
		out.writeByte('M');
		out.writeByte(1);
		out.writeLong(COMMIT_LSN - 0x100);
		out.write(prefix.getBytes(StandardCharsets.UTF_8));
		out.writeByte(0);
		out.writeInt(content.length);
		out.write(content);
		return ByteBuffer.wrap(bytes.toByteArray());
	}

	/** A {@code CREATE TABLE t (id text)} as the event trigger emits it. */
	private static byte[] createTable() {
		StringBuilder content = new StringBuilder();
		for (String field : List.of("CREATE TABLE", "16384", "public", "t", "1", "id", Integer.toString(PgType.TEXT),
				"-1", "text", "true", "true")) {
			content.append(field.getBytes(StandardCharsets.UTF_8).length).append(':').append(field);
		}
		return content.toString().getBytes(StandardCharsets.UTF_8);
	}

}
