package io.postlog.admin;

import java.util.Objects;

import io.postlog.TableId;

/**
 * A column whose values the server cannot send in binary: its type has a send function,
 * but a type inside it (the element of an array, the base of a domain, a field of a
 * composite, the subtype of a range) has none, such as {@code aclitem} in
 * {@code aclitem[]}. pgoutput with {@code binary} on fails on the server at the first
 * change of such a column ("no binary output function available for type aclitem"). A
 * column whose own type has no send function is not one of these: pgoutput sends it as
 * text. Immutable.
 *
 * @param table the table
 * @param column the column name
 * @param typeOid the column's type OID
 * @param typeName the column's type as {@code format_type} prints it
 * @param unsendableTypeOid the OID of the type inside it without a send function
 * @param unsendableTypeName that type as {@code format_type} prints it
 */
public record UnsendableColumn(TableId table, String column, int typeOid, String typeName, int unsendableTypeOid,
		String unsendableTypeName) {

	/**
	 * Creates a description.
	 * @param table the table
	 * @param column the column
	 * @param typeOid the column's type
	 * @param typeName its name
	 * @param unsendableTypeOid the type without a send function
	 * @param unsendableTypeName its name
	 */
	public UnsendableColumn {
		Objects.requireNonNull(table, "table");
		Objects.requireNonNull(column, "column");
	}

	@Override
	public String toString() {
		return this.table + "." + this.column + " (" + this.typeName + ", holding " + this.unsendableTypeName + ")";
	}

}
