package io.postlog.consumer;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import io.postlog.Change;
import io.postlog.ReplicationConsumerException;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.UnchangedToast;
import io.postlog.consumer.delivery.Event;
import org.jspecify.annotations.Nullable;

/**
 * Masks of column values, applied to every change (streamed, snapshot or backfilled,
 * before and after images) before any subscription sees it: listeners, the Kafka relay,
 * dead letters and whatever they show receive only the masked value. A
 * {@link UnchangedToast} marker and SQL {@code NULL} stay as they are (a hash of nothing
 * is nothing). Immutable and thread-safe.
 */
public final class ColumnMasks {

	/** The shortest hash key accepted, in bytes. */
	public static final int MIN_KEY_BYTES = 16;

	/** The value a {@link Mask#REDACT redacted} column holds. */
	public static final String REDACTED = "[REDACTED]";

	private static final String HMAC = "HmacSHA256";

	private final Map<TableId, Map<String, Mask>> masks;

	private final @Nullable SecretKeySpec key;

	private ColumnMasks(Map<TableId, Map<String, Mask>> masks, @Nullable SecretKeySpec key) {
		this.masks = masks;
		this.key = key;
	}

	/**
	 * Creates the masks.
	 * @param masks the mask of each column, by table and column name
	 * @param hashKey the key of {@link Mask#HASH}, or {@code null} when no column is
	 * hashed
	 * @return the masks
	 * @throws ReplicationConsumerException if a column is hashed without a key, or with a
	 * key shorter than {@value #MIN_KEY_BYTES} bytes
	 */
	public static ColumnMasks of(Map<TableId, Map<String, Mask>> masks, byte @Nullable [] hashKey) {
		Map<TableId, Map<String, Mask>> copy = new LinkedHashMap<>();
		boolean hashes = false;
		for (Map.Entry<TableId, Map<String, Mask>> table : masks.entrySet()) {
			Map<String, Mask> columns = new HashMap<>();
			table.getValue().forEach((column, mask) -> columns.put(column, Objects.requireNonNull(mask, "mask")));
			hashes |= columns.containsValue(Mask.HASH);
			if (!columns.isEmpty()) {
				copy.put(table.getKey(), Map.copyOf(columns));
			}
		}
		if (hashes && (hashKey == null || hashKey.length < MIN_KEY_BYTES)) {
			throw new ReplicationConsumerException("A hashed column needs a hash key of at least " + MIN_KEY_BYTES
					+ " bytes (postlog.mask-key); without one, equal values would hash alike everywhere and a "
					+ "guessable value could be found by hashing guesses");
		}
		return new ColumnMasks(Map.copyOf(copy),
				(hashKey != null && hashKey.length > 0) ? new SecretKeySpec(hashKey.clone(), HMAC) : null);
	}

	/**
	 * Returns whether no column is masked.
	 * @return {@code true} when there is nothing to mask
	 */
	public boolean isEmpty() {
		return this.masks.isEmpty();
	}

	/**
	 * Returns the masks of a table's columns.
	 * @param table the table
	 * @return the masks by column, empty when none of its columns is masked
	 */
	public Map<String, Mask> masks(TableId table) {
		return this.masks.getOrDefault(table, Map.of());
	}

	/**
	 * Masks one value of a column, as {@link #apply(Change)} would: for a value read
	 * elsewhere, such as an unchanged TOASTed value filled in later.
	 * @param table the table
	 * @param column the column
	 * @param value the value
	 * @return the masked value, or the value itself when the column is not masked
	 */
	public @Nullable Object mask(TableId table, String column, @Nullable Object value) {
		Mask mask = masks(table).get(column);
		return (mask != null && value != null && value != UnchangedToast.INSTANCE) ? masked(mask, value) : value;
	}

	/**
	 * Returns a change with its masked columns masked.
	 * @param change the change
	 * @return the masked change, or the same one when its table has no masks
	 */
	public Change apply(Change change) {
		Map<String, Mask> columns = this.masks.get(change.table());
		if (columns == null) {
			return change;
		}
		return new Change(change.operation(), change.table(), mask(change.before(), columns),
				mask(change.after(), columns), change.xid(), change.commitLsn(), change.commitTime(), change.index(),
				change.id());
	}

	/**
	 * Masks a change before any subscription sees it; its routes stay those of the clear
	 * key, so that a masked key keeps its order.
	 * @param masks the masks, or {@code null} when none is set
	 * @param arrived the change as it arrived
	 * @return the masked change, or the same one when nothing of it is masked
	 */
	static Event.ChangeArrived apply(@Nullable ColumnMasks masks, Event.ChangeArrived arrived) {
		Change masked = (masks != null) ? masks.apply(arrived.change()) : arrived.change();
		return (masked == arrived.change()) ? arrived
				: new Event.ChangeArrived(masked, arrived.route(), arrived.previousRoute(), arrived.bytes());
	}

	private @Nullable Row mask(@Nullable Row row, Map<String, Mask> columns) {
		if (row == null) {
			return null;
		}
		Map<String, @Nullable Object> masked = new HashMap<>();
		columns.forEach((column, mask) -> {
			Object value = row.find(column).orElse(null);
			if (value != null && value != UnchangedToast.INSTANCE) {
				masked.put(column, masked(mask, value));
			}
		});
		return row.with(masked);
	}

	private @Nullable Object masked(Mask mask, Object value) {
		return switch (mask) {
			case NULL -> null;
			case REDACT -> REDACTED;
			case HASH -> hash(value);
		};
	}

	/**
	 * HMAC-SHA-256 of the value's bytes ({@code byte[]} as it is, any other value as the
	 * UTF-8 of its {@code toString()}, which text and binary decoding give alike), as 64
	 * lower-case hex digits.
	 */
	private String hash(Object value) {
		byte[] bytes = (value instanceof byte[] raw) ? raw : value.toString().getBytes(StandardCharsets.UTF_8);
		try {
			Mac mac = Mac.getInstance(HMAC);
			mac.init(Objects.requireNonNull(this.key));
			return HexFormat.of().formatHex(mac.doFinal(bytes));
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("HMAC-SHA-256 is not available", ex);
		}
	}

	@Override
	public String toString() {
		return "ColumnMasks" + this.masks;
	}

	/**
	 * What a masked column holds instead of its value.
	 */
	public enum Mask {

		/** SQL {@code NULL}. */
		NULL,

		/**
		 * A keyed hash: HMAC-SHA-256 of the value, as 64 lower-case hex digits, equal for
		 * equal values under one key (so it still joins and groups).
		 */
		HASH,

		/** The text {@value ColumnMasks#REDACTED}, whatever the column's type. */
		REDACT;

		/**
		 * Parses a property value such as {@code hash} (case is not significant).
		 * @param value the value
		 * @return the mask
		 * @throws IllegalArgumentException if it names no mask
		 */
		public static Mask fromProperty(String value) {
			try {
				return valueOf(value.trim().toUpperCase(Locale.ROOT));
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("Unknown mask '" + value + "' (expected null, hash or redact)", ex);
			}
		}

	}

}
