package io.postlog.spring;

import io.postlog.LogicalMessage;

/**
 * Calls a {@code LogicalMessage} listener for messages of its prefix. Thread-safe.
 */
final class MessageInvoker {

	private final ListenerMethod method;

	private final String prefix;

	MessageInvoker(ListenerMethod method, String prefix) {
		this.method = method;
		this.prefix = prefix;
	}

	ListenerMethod method() {
		return this.method;
	}

	String prefix() {
		return this.prefix;
	}

	void invoke(LogicalMessage message) {
		if (message.prefix().equals(this.prefix)) {
			this.method.invoke(message, message.lsn(), null, null, message);
		}
	}

}
