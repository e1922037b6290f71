package io.postlog.heartbeat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;

import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.Row;
import io.postlog.TableId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class HeartbeatTests {

	private static final Heartbeat BEAT = new Heartbeat("orders_slot", "a1b2c3d4", 42,
			Instant.parse("2025-01-02T03:04:05.678Z"));

	private static final TableId TABLE = HeartbeatWriter.DEFAULT_TABLE;

	@Test
	void aHeartbeatMessageRoundTrips() {
		assertThat(new String(BEAT.content(), StandardCharsets.UTF_8))
			.isEqualTo("v1;orders_slot;a1b2c3d4;42;1735787045678");
		assertThat(Heartbeat.fromMessage(message(Heartbeat.PREFIX, BEAT.content()))).contains(BEAT);
	}

	@Test
	void otherMessagesAreNotHeartbeats() {
		assertThat(Heartbeat.fromMessage(message("audit", BEAT.content()))).isEmpty();
		assertThat(Heartbeat.fromMessage(message(Heartbeat.PREFIX, new byte[0]))).isEmpty();
		assertThat(Heartbeat.fromMessage(message(Heartbeat.PREFIX, bytes("v2;s;i;1;2")))).isEmpty();
		assertThat(Heartbeat.fromMessage(message(Heartbeat.PREFIX, bytes("v1;s;i;x;2")))).isEmpty();
		assertThat(Heartbeat.fromMessage(message(Heartbeat.PREFIX, bytes("v1;s;i;1")))).isEmpty();
	}

	@Test
	void aHeartbeatRowIsReadFromTheHeartbeatTableOnly() {
		Map<String, Object> values = new LinkedHashMap<>();
		values.put("slot_name", "orders_slot");
		values.put("instance", "a1b2c3d4");
		values.put("sequence", 42L);
		values.put("emitted_at", OffsetDateTime.ofInstant(BEAT.emittedAt(), ZoneOffset.UTC));
		Row row = Row.of(values);
		assertThat(Heartbeat.fromRow(TABLE, TABLE, row)).contains(BEAT);
		assertThat(Heartbeat.fromRow(TableId.parse("orders"), TABLE, row)).isEmpty();
		values.put("sequence", "42");
		assertThat(Heartbeat.fromRow(TABLE, TABLE, Row.of(values))).isEmpty();
		values.remove("sequence");
		assertThat(Heartbeat.fromRow(TABLE, TABLE, Row.of(values))).isEmpty();
	}

	@Test
	void anInstanceIdCannotHoldTheSeparator() {
		assertThatIllegalArgumentException().isThrownBy(() -> new Heartbeat("s", "a;b", 1, Instant.EPOCH));
	}

	private static LogicalMessage message(String prefix, byte[] content) {
		return new LogicalMessage(prefix, content, false, Lsn.parse("0/1"));
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
