package io.postlog.snapshot;

/**
 * A snapshot name failed the character check that guards
 * {@code SET TRANSACTION SNAPSHOT}: it is not the {@code %08X-%08X-%d} form PostgreSQL 10
 * and later export (nor 9.6's {@code %08X-%d}). The name is never put into SQL; the
 * message shows it with control characters and quotes escaped.
 */
public class InvalidSnapshotNameException extends SnapshotException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception.
	 * @param name the refused name
	 */
	public InvalidSnapshotNameException(String name) {
		super("Not an exported snapshot name: '" + printable(name)
				+ "' (expected hexadecimal XXXXXXXX-XXXXXXXX-N as the server exports it)", null);
	}

	private static String printable(String name) {
		StringBuilder printable = new StringBuilder();
		name.codePoints().limit(80).forEach((codePoint) -> {
			if (codePoint < 0x20 || codePoint == 0x7F || codePoint == '\'' || codePoint == '\\') {
				printable.append(String.format("\\u%04x", codePoint));
			}
			else {
				printable.appendCodePoint(codePoint);
			}
		});
		return printable.toString();
	}

}
