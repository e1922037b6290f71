package io.postlog.spring.boot.autoconfigure;

/**
 * Settings of the wal2json decoder. Bound under {@code postlog.wal2json}, a group of
 * {@link PostlogProperties}; not thread-safe, bound once at start-up.
 */
public class PostlogWal2jsonProperties {

	/**
	 * Whether to stream tables without a primary key or replica identity index (and not
	 * REPLICA IDENTITY FULL), whose updates and deletes wal2json drops, as insert-only
	 * tables; they are refused otherwise.
	 */
	private boolean allowInsertOnlyTables;

	/**
	 * Whether to ask wal2json for numbers as strings (numeric-data-types-as-string,
	 * wal2json 2.6+), which keeps NaN and Infinity; an older wal2json is refused at
	 * start.
	 */
	private boolean numbersAsStrings;

	/**
	 * Whether to stream float4, float8 and numeric columns without numbers as strings,
	 * accepting that their NaN and Infinity arrive as null; they are refused otherwise.
	 */
	private boolean allowNonFiniteAsNull;

	public boolean isAllowInsertOnlyTables() {
		return this.allowInsertOnlyTables;
	}

	public void setAllowInsertOnlyTables(boolean allowInsertOnlyTables) {
		this.allowInsertOnlyTables = allowInsertOnlyTables;
	}

	public boolean isNumbersAsStrings() {
		return this.numbersAsStrings;
	}

	public void setNumbersAsStrings(boolean numbersAsStrings) {
		this.numbersAsStrings = numbersAsStrings;
	}

	public boolean isAllowNonFiniteAsNull() {
		return this.allowNonFiniteAsNull;
	}

	public void setAllowNonFiniteAsNull(boolean allowNonFiniteAsNull) {
		this.allowNonFiniteAsNull = allowNonFiniteAsNull;
	}

}
