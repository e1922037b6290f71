package io.postlog.consumer.delivery;

import io.postlog.Change;

/**
 * One subscription as delivery sees it: its id, the kind of item its handler takes, and
 * which changes and schema changes it takes. The consumer makes one from each of its
 * subscriptions. Immutable and thread-safe.
 * <p>
 * Internal: public only so the consumer can make one; not part of postlog's API, and it
 * may change in any release.
 */
public interface Recipient {

	/**
	 * Returns the subscription's id.
	 * @return the id
	 */
	String id();

	/**
	 * Returns the kind of item its handler takes.
	 * @return the kind
	 */
	Kind kind();

	/**
	 * Returns whether it takes a change (its filter).
	 * @param change the change
	 * @return {@code true} to hand the change to its handler
	 */
	boolean accepts(Change change);

	/**
	 * Returns whether it has a schema handler.
	 * @return {@code true} to hand it schema changes
	 */
	boolean takesSchemaChanges();

	/** The kinds of handler, resolved once when the subscription is made. */
	enum Kind {

		/** One call per change. */
		CHANGE,

		/** One call per transaction with at least one matching change. */
		TRANSACTION,

		/** One call per logical decoding message. */
		MESSAGE,

		/** Only schema changes. */
		SCHEMA

	}

}
