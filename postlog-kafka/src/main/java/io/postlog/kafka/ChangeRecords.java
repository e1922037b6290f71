package io.postlog.kafka;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.UnchangedToast;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.jspecify.annotations.Nullable;

/**
 * Makes the Kafka record of a change: topic by the topic pattern, key the row's
 * replica-identity key as a JSON object (so the partitioner keeps each row's changes in
 * one partition, in order), value the change in the relay's {@link RelayFormat} (by
 * default as JSON, {@link ChangeJson}), headers {@code postlog-id},
 * {@code postlog-commit-lsn} and those of the format. Truncates, and rows of tables
 * without a usable key, have no key. Delivery thread only.
 */
final class ChangeRecords {

	/** The header holding {@link Change#id()}. */
	static final String ID_HEADER = "postlog-id";

	/** The header holding the source transaction's commit LSN. */
	static final String COMMIT_LSN_HEADER = "postlog-commit-lsn";

	private final TopicNames topics;

	private final ReplicaIdentityKeys keys;

	private final ChangeFormatter format;

	private long lastCommitLsn = -1;

	private byte[] lastCommitLsnBytes = new byte[0];

	ChangeRecords(TopicNames topics, ReplicaIdentityKeys keys, ChangeFormatter format) {
		this.topics = topics;
		this.keys = keys;
		this.format = format;
	}

	ProducerRecord<byte[], byte[]> record(Change change) {
		RecordHeaders headers = new RecordHeaders();
		headers.add(ID_HEADER, change.id().getBytes(StandardCharsets.UTF_8));
		headers.add(COMMIT_LSN_HEADER, commitLsnBytes(change));
		byte[] value = this.format.value(change, headers);
		return new ProducerRecord<>(this.topics.topic(change.table()), null, key(change), value, headers);
	}

	private byte[] commitLsnBytes(Change change) {
		// The same for every change of a transaction: formatted once.
		if (change.commitLsn().value() != this.lastCommitLsn) {
			this.lastCommitLsn = change.commitLsn().value();
			this.lastCommitLsnBytes = change.commitLsn().toString().getBytes(StandardCharsets.UTF_8);
		}
		return this.lastCommitLsnBytes;
	}

	private byte @Nullable [] key(Change change) {
		if (change.operation() == Operation.TRUNCATE) {
			return null;
		}
		if (change.operation() == Operation.DELETE && change.before() != null) {
			List<String> columns = this.keys.columns(change.table());
			Row before = change.before();
			// A key image holds the key columns alone; a full image (replica identity
			// full) means the table has no key.
			if (columns.isEmpty() || !before.columns().equals(columns)) {
				return columns.isEmpty() ? null : keyOf(before, columns);
			}
			return ChangeJson.columns(before, columns);
		}
		Row row = change.row();
		List<String> columns = this.keys.columns(change.table());
		return (row == null || columns.isEmpty()) ? null : keyOf(row, columns);
	}

	private static byte @Nullable [] keyOf(Row row, List<String> columns) {
		for (String column : columns) {
			if (!row.contains(column) || row.get(column) == UnchangedToast.INSTANCE) {
				return null;
			}
		}
		return ChangeJson.columns(row, columns);
	}

}
