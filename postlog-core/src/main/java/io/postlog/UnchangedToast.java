package io.postlog;

/**
 * The value a {@link Row} holds for a TOASTed column that an update did not change and
 * the server therefore did not resend. It is never {@code null}, so "unchanged" cannot be
 * mistaken for SQL {@code NULL}.
 */
public final class UnchangedToast {

	/** The one instance. */
	public static final UnchangedToast INSTANCE = new UnchangedToast();

	private UnchangedToast() {
	}

	@Override
	public String toString() {
		return "UnchangedToast";
	}

}
