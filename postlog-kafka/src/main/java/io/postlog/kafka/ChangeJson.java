package io.postlog.kafka;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import io.postlog.Change;
import io.postlog.Row;
import io.postlog.UnchangedToast;
import io.postlog.json.RowJson;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes changes, keys and values as JSON, rows and values in core's one form
 * ({@link RowJson}: {@code numeric} as its exact decimal text in a string, {@code bytea}
 * as base64, NaN and infinities as strings). A column whose TOASTed value the server did
 * not resend is left out of its row and named in {@code unchangedToast}. Thread-safe: a
 * change or key is written into a text buffer of the thread's own and encoded once; other
 * documents go through a generator of the thread's own; both are kept for the next
 * document (see {@link Documents}).
 */
final class ChangeJson {

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	/**
	 * Streaming generators for the hot path: no data-binding context per record, and no
	 * separator between the documents one generator writes in turn.
	 */
	private static final JsonFactory FACTORY = JsonFactory.builder().rootValueSeparator((String) null).build();

	/** A change's JSON without its rows, in characters, to size its buffer. */
	private static final int DOCUMENT_CHARS = 256;

	/** About what a column takes in a row's JSON. */
	private static final int COLUMN_CHARS = 48;

	private static final ThreadLocal<Documents> DOCUMENTS = ThreadLocal.withInitial(Documents::new);

	private ChangeJson() {
	}

	/**
	 * Writes a change: {@code op}, {@code table}, {@code before}, {@code after},
	 * {@code commitLsn}, {@code xid}, {@code commitTime}, {@code id}, and
	 * {@code unchangedToast} when the after-row has such columns.
	 * @param change the change
	 * @return the UTF-8 JSON
	 */
	static byte[] change(Change change) {
		// Written into one buffer and encoded once: through a generator, each row went
		// into a string of its own first and was then copied into the generator's buffer
		// character by character.
		Documents documents = DOCUMENTS.get();
		StringBuilder json = documents
			.text(DOCUMENT_CHARS + COLUMN_CHARS * (columnCount(change.before()) + columnCount(change.after())));
		json.append("{\"op\":\"").append(change.operation().name()).append("\",\"table\":{\"schema\":");
		RowJson.value(json, change.table().schema());
		json.append(",\"name\":");
		RowJson.value(json, change.table().name());
		json.append("},\"before\":");
		row(json, change.before());
		json.append(",\"after\":");
		row(json, change.after());
		json.append(",\"commitLsn\":");
		RowJson.value(json, documents.commitLsn(change));
		json.append(",\"xid\":").append(change.xid()).append(",\"commitTime\":");
		RowJson.value(json, documents.commitTime(change));
		json.append(",\"id\":");
		RowJson.value(json, change.id());
		List<String> unchanged = unchangedToast(change.after());
		if (!unchanged.isEmpty()) {
			json.append(",\"unchangedToast\":");
			RowJson.value(json, unchanged);
		}
		return documents.bytes(json.append('}'));
	}

	/**
	 * Writes the named columns of a row as an object, in the order given (a record's key:
	 * the caller names columns the row holds with their values), through
	 * {@link RowJson#row(StringBuilder, Row, java.util.Collection)} into one buffer.
	 * @param row the row
	 * @param columns the columns
	 * @return the UTF-8 JSON
	 */
	static byte[] columns(Row row, List<String> columns) {
		Documents documents = DOCUMENTS.get();
		StringBuilder json = documents.text(2 + COLUMN_CHARS * columns.size());
		RowJson.row(json, row, columns);
		return documents.bytes(json);
	}

	/**
	 * Writes one value as a JSON document.
	 * @param value the value
	 * @return the UTF-8 JSON
	 */
	static byte[] value(@Nullable Object value) {
		return write((json) -> value(json, value));
	}

	/**
	 * Writes one document with this thread's generator. A generator that failed in the
	 * middle of a document, or whose buffer grew past {@link Documents#KEPT_BYTES}, is
	 * not kept; a document written while another is (a caller's own value writer calling
	 * back) gets a generator of its own.
	 */
	static byte[] write(Consumer<JsonGenerator> document) {
		Documents documents = DOCUMENTS.get();
		if (documents.writing) {
			documents = new Documents();
		}
		documents.writing = true;
		boolean keep = false;
		try {
			document.accept(documents.json);
			documents.json.flush();
			byte[] bytes = documents.out.toByteArray();
			keep = bytes.length <= Documents.KEPT_BYTES;
			return bytes;
		}
		finally {
			documents.out.reset();
			documents.writing = false;
			if (!keep && DOCUMENTS.get() == documents) {
				DOCUMENTS.remove();
			}
		}
	}

	static JsonMapper mapper() {
		return MAPPER;
	}

	/**
	 * A thread's generator and the buffer it writes into, reused document after document:
	 * making a generator per record took about a tenth of the relay's delivery thread.
	 */
	private static final class Documents {

		/** The largest document after which the buffer is kept for the next. */
		static final int KEPT_BYTES = 64 * 1024;

		final ByteArrayOutputStream out = new ByteArrayOutputStream(512);

		final JsonGenerator json = FACTORY.createGenerator(ObjectWriteContext.empty(), this.out);

		boolean writing;

		/**
		 * The text of the change or key being written, kept for the next: a new buffer
		 * per record, sized for the row, was the largest thing allocated in writing a
		 * change's JSON.
		 */
		private StringBuilder text = new StringBuilder(1024);

		/** The last commit LSN and commit time formatted, and their texts. */
		private long lsn = -1;

		private String lsnText = "";

		private @Nullable Instant time;

		private String timeText = "";

		/**
		 * Returns this thread's text buffer, empty, with room for about {@code chars}.
		 * Records are written one at a time on a thread (nothing written into the buffer
		 * calls back into this class), so one buffer serves them all.
		 */
		StringBuilder text(int chars) {
			this.text.setLength(0);
			this.text.ensureCapacity(chars);
			return this.text;
		}

		/**
		 * Returns the UTF-8 bytes of the text written, and lets go of a buffer whose
		 * capacity grew past {@link #KEPT_BYTES} characters for a large row, so that it
		 * is not held for good.
		 */
		byte[] bytes(StringBuilder json) {
			byte[] bytes = json.toString().getBytes(StandardCharsets.UTF_8);
			if (json.capacity() > KEPT_BYTES) {
				this.text = new StringBuilder(1024);
			}
			return bytes;
		}

		/**
		 * Returns the text of a change's commit LSN, formatted once per transaction:
		 * formatting it and the commit time for every change took about a sixth of the
		 * relay's allocations on its delivery thread.
		 */
		String commitLsn(Change change) {
			if (change.commitLsn().value() != this.lsn || this.lsnText.isEmpty()) {
				this.lsnText = change.commitLsn().toString();
				this.lsn = change.commitLsn().value();
			}
			return this.lsnText;
		}

		/**
		 * Returns a change's commit time as ISO-8601, formatted once per transaction.
		 */
		String commitTime(Change change) {
			if (!change.commitTime().equals(this.time)) {
				this.timeText = DateTimeFormatter.ISO_INSTANT.format(change.commitTime());
				this.time = change.commitTime();
			}
			return this.timeText;
		}

	}

	private static int columnCount(@Nullable Row row) {
		return (row != null) ? row.columns().size() : 0;
	}

	private static void row(StringBuilder json, @Nullable Row row) {
		if (row == null) {
			json.append("null");
		}
		else {
			RowJson.row(json, row, row.columns());
		}
	}

	private static List<String> unchangedToast(@Nullable Row row) {
		if (row == null) {
			return List.of();
		}
		List<String> unchanged = null;
		for (String column : row.columns()) {
			if (row.get(column) == UnchangedToast.INSTANCE) {
				if (unchanged == null) {
					unchanged = new ArrayList<>(2);
				}
				unchanged.add(column);
			}
		}
		return (unchanged != null) ? unchanged : List.of();
	}

	private static void value(JsonGenerator json, @Nullable Object value) {
		json.writeRawValue(RowJson.value(value));
	}

}
