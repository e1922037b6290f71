package io.postlog.spring.boot.autoconfigure;

/**
 * Settings of the postlog actuator endpoint. Bound under {@code postlog.endpoint}, a
 * group of {@link PostlogProperties}; not thread-safe, bound once at start-up.
 */
public class PostlogEndpointProperties {

	/**
	 * Whether the endpoint shows the message of a listener's own exception (and of any
	 * failure that is not postlog's); off, it shows the exception's class only, since
	 * such messages often carry row values.
	 */
	private boolean showExceptionMessages;

	public boolean isShowExceptionMessages() {
		return this.showExceptionMessages;
	}

	public void setShowExceptionMessages(boolean showExceptionMessages) {
		this.showExceptionMessages = showExceptionMessages;
	}

}
