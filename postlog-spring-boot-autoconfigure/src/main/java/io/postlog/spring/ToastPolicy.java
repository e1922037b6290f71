package io.postlog.spring;

import io.postlog.UnchangedToast;

/**
 * What a change listener receives for a TOASTed column that an {@code UPDATE} left
 * unchanged, whose value the server does not resend ({@link PgChangeListener#toast()}).
 * Only listeners with a policy other than {@link #MARKER} do any work for it.
 */
public enum ToastPolicy {

	/** The {@link UnchangedToast} marker in place of the value (the default). */
	MARKER,

	/**
	 * The value from the change's before image, which a table with
	 * {@code REPLICA IDENTITY FULL} carries whole. Start-up refuses a table the listener
	 * reads without {@code REPLICA IDENTITY FULL}, with the {@code ALTER TABLE} that
	 * fixes it.
	 */
	REQUIRE_FULL,

	/**
	 * The column's current value, read from the table by the row's replica-identity key
	 * when the change is delivered. Racy: a later transaction may have changed or deleted
	 * the row meanwhile, and then the value read is that later one (or, for a deleted
	 * row, the marker stays). Each read is counted in {@code postlog.toast.reselects}.
	 */
	RESELECT,

	/**
	 * The values a {@link ToastResolver} bean gives
	 * ({@link PgChangeListener#toastResolver()} names it, else the application's only
	 * one), for example read from the listener's own sink.
	 */
	RESOLVER

}
