package io.postlog.pgoutput;

import java.util.List;

/**
 * The column values of one row, in the relation's column order (protocol section
 * "TupleData").
 *
 * @param values one value per column (copied)
 */
public record TupleData(List<TupleValue> values) {

	/**
	 * Creates tuple data.
	 * @param values the values
	 */
	public TupleData {
		values = List.copyOf(values);
	}

	/**
	 * Returns the number of columns.
	 * @return the column count
	 */
	public int size() {
		return this.values.size();
	}

	/**
	 * Returns one column's value.
	 * @param index the 0-based column position
	 * @return the value
	 */
	public TupleValue get(int index) {
		return this.values.get(index);
	}

}
