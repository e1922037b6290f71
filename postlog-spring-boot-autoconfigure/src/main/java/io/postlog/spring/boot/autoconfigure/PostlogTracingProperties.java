package io.postlog.spring.boot.autoconfigure;

/**
 * Tracing settings. Bound under {@code postlog.tracing}, a group of
 * {@link PostlogProperties}; not thread-safe, bound once at start-up.
 */
public class PostlogTracingProperties {

	/**
	 * Whether each writing transaction carries its writer's trace context to postlog's
	 * listeners, as a transactional logical message (PostgreSQL 14+; needs Micrometer
	 * Tracing).
	 */
	private boolean propagate;

	public boolean isPropagate() {
		return this.propagate;
	}

	public void setPropagate(boolean propagate) {
		this.propagate = propagate;
	}

}
