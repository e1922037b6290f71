package io.postlog.spring;

import java.nio.charset.StandardCharsets;

import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TraceMessages}: the headers of a {@code postlog.trace} message by its
 * transaction id; other prefixes, non-transactional messages and messages without a
 * usable transaction id are ignored.
 */
class TraceMessagesTests {

	private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

	@Test
	void headersAreKeptByTransactionId() {
		TraceMessages traces = new TraceMessages();
		traces.accept(message("postlog.trace", "traceparent: " + TRACEPARENT + "\ntracestate: a=b\nxid: 742", true));
		assertThat(traces.of(742)).containsOnly(java.util.Map.entry("traceparent", TRACEPARENT),
				java.util.Map.entry("tracestate", "a=b"));
		assertThat(traces.of(743)).isEmpty();
	}

	@Test
	void otherMessagesAreIgnored() {
		TraceMessages traces = new TraceMessages();
		traces.accept(message("postlog.traces", "traceparent: " + TRACEPARENT + "\nxid: 1", true));
		traces.accept(message("postlog.trace", "traceparent: " + TRACEPARENT + "\nxid: 2", false));
		traces.accept(message("postlog.trace", "traceparent: " + TRACEPARENT + "\nxid: x", true));
		traces.accept(message("postlog.trace", "traceparent: " + TRACEPARENT, true));
		assertThat(traces.of(1)).isEmpty();
		assertThat(traces.of(2)).isEmpty();
	}

	private static LogicalMessage message(String prefix, String content, boolean transactional) {
		return new LogicalMessage(prefix, content.getBytes(StandardCharsets.UTF_8), transactional,
				Lsn.parse("0/16B374D"));
	}

}
