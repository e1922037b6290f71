package io.postlog.spring;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import io.postlog.LogicalMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One group's trace headers of recent transactions, from the {@value #PREFIX} messages
 * the writers put first into their transactions: each message names its transaction's id
 * ({@code xid: <n>}) and the headers (W3C {@code traceparent}, and whatever else the
 * writer's propagator sends), one {@code name: value} line each. The message arrives
 * before the transaction's changes, so its headers are here when a listener is called, on
 * any lane. Keeps the last {@value #CAPACITY} transactions. Thread-safe.
 */
final class TraceMessages implements TraceHeaders {

	/** The messages' prefix. */
	static final String PREFIX = "postlog.trace";

	/** The line that names the transaction. */
	static final String XID = "xid";

	private static final int CAPACITY = 4096;

	private static final Logger logger = LoggerFactory.getLogger(TraceMessages.class);

	private final Map<Long, Map<String, String>> byXid = Collections
		.synchronizedMap(new LinkedHashMap<>(256, 0.75f, false) {

			@Override
			protected boolean removeEldestEntry(Map.Entry<Long, Map<String, String>> eldest) {
				return size() > CAPACITY;
			}

		});

	/**
	 * Keeps the headers of a trace message; ignores other messages.
	 * @param message a message of the stream
	 */
	void accept(LogicalMessage message) {
		if (!PREFIX.equals(message.prefix()) || !message.transactional()) {
			return;
		}
		Map<String, String> headers = new LinkedHashMap<>();
		long xid = -1;
		for (String line : new String(message.content(), StandardCharsets.UTF_8).split("\n")) {
			int colon = line.indexOf(':');
			if (colon <= 0) {
				continue;
			}
			String name = line.substring(0, colon).trim();
			String value = line.substring(colon + 1).trim();
			if (XID.equals(name)) {
				xid = parse(value);
			}
			else {
				headers.put(name, value);
			}
		}
		if (xid < 0) {
			logger.debug("A {} message at {} names no transaction; ignored", PREFIX, message.lsn());
			return;
		}
		this.byXid.put(xid, Map.copyOf(headers));
	}

	@Override
	public Map<String, String> of(long xid) {
		Map<String, String> headers = this.byXid.get(xid);
		return (headers != null) ? headers : Map.of();
	}

	private static long parse(String value) {
		try {
			return Long.parseLong(value);
		}
		catch (NumberFormatException ex) {
			logger.debug("A {} message has a transaction id that is not a number", PREFIX);
			return -1;
		}
	}

}
