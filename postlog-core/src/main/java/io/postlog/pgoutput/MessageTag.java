package io.postlog.pgoutput;

import org.jspecify.annotations.Nullable;

/**
 * The first byte of every pgoutput message, as listed in PostgreSQL's "Logical
 * Replication Message Formats".
 */
enum MessageTag {

	BEGIN('B', "Begin"), MESSAGE('M', "Message"), COMMIT('C', "Commit"), ORIGIN('O', "Origin"),
	RELATION('R', "Relation"), TYPE('Y', "Type"), INSERT('I', "Insert"), UPDATE('U', "Update"), DELETE('D', "Delete"),
	TRUNCATE('T', "Truncate"), STREAM_START('S', "Stream Start"), STREAM_STOP('E', "Stream Stop"),
	STREAM_COMMIT('c', "Stream Commit"), STREAM_ABORT('A', "Stream Abort"), BEGIN_PREPARE('b', "Begin Prepare"),
	PREPARE('P', "Prepare"), COMMIT_PREPARED('K', "Commit Prepared"), ROLLBACK_PREPARED('r', "Rollback Prepared"),
	STREAM_PREPARE('p', "Stream Prepare");

	private static final @Nullable MessageTag[] BY_BYTE = new MessageTag[256];

	static {
		for (MessageTag tag : values()) {
			BY_BYTE[tag.code] = tag;
		}
	}

	private final char code;

	private final String displayName;

	MessageTag(char code, String displayName) {
		this.code = code;
		this.displayName = displayName;
	}

	char code() {
		return this.code;
	}

	String displayName() {
		return this.displayName;
	}

	static @Nullable MessageTag of(int unsignedByte) {
		return BY_BYTE[unsignedByte];
	}

}
