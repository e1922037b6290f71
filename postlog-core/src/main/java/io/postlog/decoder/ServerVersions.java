package io.postlog.decoder;

/**
 * The server versions the decoders' gates compare with, and how a version is named in a
 * refusal.
 */
final class ServerVersions {

	static final int V9_6 = 90600;

	static final int V10 = 100000;

	static final int V11 = 110000;

	static final int V14 = 140000;

	private ServerVersions() {
	}

	/**
	 * Formats a {@code server_version_num}: {@code 17.6 (170006)},
	 * {@code 9.6.24 (90624)}.
	 */
	static String text(int serverVersion) {
		if (serverVersion >= V10) {
			return (serverVersion / 10000) + "." + (serverVersion % 10000) + " (" + serverVersion + ")";
		}
		return (serverVersion / 10000) + "." + (serverVersion / 100 % 100) + "." + (serverVersion % 100) + " ("
				+ serverVersion + ")";
	}

}
