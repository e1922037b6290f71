package io.postlog.spring;

import java.lang.reflect.Constructor;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.postlog.PostlogException;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.UnchangedToast;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeansException;
import org.springframework.beans.PropertyAccessorFactory;
import org.springframework.core.MethodParameter;
import org.springframework.core.convert.ConversionException;
import org.springframework.core.convert.ConversionService;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.util.ClassUtils;

/**
 * Binds a {@link Row} to a record or JavaBean by column name, {@code snake_case} columns
 * to {@code camelCase} names. Unchanged TOASTed values are left unset (constructor
 * arguments get {@code null}). Errors name the type, column and table but drop the
 * conversion failure, whose message would carry the value.
 */
final class RowBinder {

	private final Class<?> type;

	private final Constructor<?> constructor;

	private final String[] parameterNames;

	private final TypeDescriptor[] parameterTypes;

	private final ConversionService conversionService;

	/**
	 * The columns of the last row bound and, per constructor parameter, the column it
	 * takes: rows of one table share their column list, so this is worked out once per
	 * table rather than once per row.
	 */
	private volatile @Nullable ColumnMapping mapping;

	RowBinder(Class<?> type, ConversionService conversionService) {
		this.type = type;
		this.constructor = BeanUtils.getResolvableConstructor(type);
		this.parameterNames = BeanUtils.getParameterNames(this.constructor);
		this.parameterTypes = new TypeDescriptor[this.parameterNames.length];
		for (int i = 0; i < this.parameterTypes.length; i++) {
			this.parameterTypes[i] = new TypeDescriptor(MethodParameter.forExecutable(this.constructor, i));
		}
		this.conversionService = conversionService;
	}

	/**
	 * Checks, once a table's columns are known, that every constructor parameter can be
	 * bound from its rows: each matches a column, and a primitive one's column is never
	 * {@code NULL} and, for a listener of deletes, present in the delete image. A
	 * JavaBean's properties are optional and not checked.
	 * @param listenerId the listener, for the message
	 * @param table the table
	 * @param columns the table's columns, each with whether it is {@code NOT NULL}
	 * @param deleteImage the columns a {@code DELETE} sends, or {@code null} when the
	 * listener takes no deletes or the table sends whole rows
	 * @throws ListenerBindingException naming the first parameter that cannot be bound
	 */
	void check(String listenerId, TableId table, Map<String, Boolean> columns, @Nullable List<String> deleteImage) {
		if (this.constructor.getParameterCount() == 0) {
			return;
		}
		Map<String, String> columnsByName = columnsByName(List.copyOf(columns.keySet()));
		for (int i = 0; i < this.parameterNames.length; i++) {
			String name = this.parameterNames[i];
			String column = columnsByName.get(name);
			if (column == null) {
				throw new ListenerBindingException(listenerId, table, this.type.getName(), name,
						"matches no column (columns: " + String.join(", ", columns.keySet())
								+ "); rename it, or bind to Row or Map<String, Object>");
			}
			Class<?> type = this.parameterTypes[i].getType();
			if (!type.isPrimitive()) {
				continue;
			}
			String wrapper = ClassUtils.resolvePrimitiveIfNecessary(type).getSimpleName();
			if (!columns.get(column)) {
				throw new ListenerBindingException(listenerId, table, this.type.getName(), name,
						"is a primitive " + type.getName() + " but column '" + column + "' can be NULL; declare it "
								+ wrapper + ", or make the column NOT NULL");
			}
			if (deleteImage != null && !deleteImage.contains(column)) {
				throw new ListenerBindingException(listenerId, table, this.type.getName(), name,
						"is a primitive " + type.getName() + " but column '" + column
								+ "' is absent from DELETE images, which carry only the replica identity columns ("
								+ String.join(", ", deleteImage) + "); declare it " + wrapper
								+ ", leave DELETE out of the listener's operations, or ALTER TABLE " + table
								+ " REPLICA IDENTITY FULL");
			}
		}
	}

	Object bind(Row row, TableId table) {
		return (this.constructor.getParameterCount() == 0) ? bindProperties(row, table) : bindConstructor(row, table);
	}

	private Object bindProperties(Row row, TableId table) {
		Object instance = BeanUtils.instantiateClass(this.constructor);
		BeanWrapper wrapper = PropertyAccessorFactory.forBeanPropertyAccess(instance);
		wrapper.setConversionService(this.conversionService);
		for (String column : row.columns()) {
			Object value = row.get(column);
			String property = camelCase(column);
			if (value == UnchangedToast.INSTANCE || !wrapper.isWritableProperty(property)) {
				continue;
			}
			try {
				wrapper.setPropertyValue(property, value);
			}
			catch (BeansException ex) {
				throw failure(column, table, property, ex);
			}
		}
		return instance;
	}

	private Object bindConstructor(Row row, TableId table) {
		@Nullable String[] columns = columnsFor(row);
		@Nullable Object[] args = new Object[this.parameterNames.length];
		for (int i = 0; i < args.length; i++) {
			String column = columns[i];
			Object value = (column != null) ? row.get(column) : null;
			TypeDescriptor parameterType = this.parameterTypes[i];
			if (value == UnchangedToast.INSTANCE) {
				value = null;
			}
			if (value == null) {
				if (parameterType.isPrimitive()) {
					throw new PostlogException("Cannot bind " + table + " to " + this.type.getName() + ": "
							+ ((column != null) ? "column '" + column + "' is null or unchanged"
									: "no column for '" + this.parameterNames[i] + "'")
							+ " but the parameter is primitive");
				}
				continue;
			}
			// Values that already fit need no conversion; collections still go through
			// it, so
			// their elements are converted to the parameter's element type.
			if (!parameterType.isCollection() && !parameterType.isMap()
					&& ClassUtils.isAssignableValue(parameterType.getType(), value)) {
				args[i] = value;
				continue;
			}
			try {
				args[i] = this.conversionService.convert(value, TypeDescriptor.forObject(value), parameterType);
			}
			catch (ConversionException ex) {
				throw failure(column, table, this.parameterNames[i], ex);
			}
		}
		return BeanUtils.instantiateClass(this.constructor, args);
	}

	private @Nullable String[] columnsFor(Row row) {
		List<String> columns = row.columns();
		ColumnMapping mapping = this.mapping;
		if (mapping == null || mapping.columns() != columns) {
			Map<String, String> columnsByName = columnsByName(columns);
			@Nullable String[] parameterColumns = new String[this.parameterNames.length];
			for (int i = 0; i < parameterColumns.length; i++) {
				parameterColumns[i] = columnsByName.get(this.parameterNames[i]);
			}
			mapping = new ColumnMapping(columns, parameterColumns);
			this.mapping = mapping;
		}
		return mapping.parameterColumns();
	}

	private static Map<String, String> columnsByName(List<String> columns) {
		Map<String, String> columnsByName = new HashMap<>();
		for (String column : columns) {
			columnsByName.putIfAbsent(camelCase(column), column);
		}
		for (String column : columns) {
			columnsByName.put(column, column);
		}
		return columnsByName;
	}

	private PostlogException failure(@Nullable String column, TableId table, String target, Exception ex) {
		return new PostlogException("Cannot bind column '" + column + "' of " + table + " to '" + target + "' of "
				+ this.type.getName() + " (" + ex.getClass().getSimpleName() + ")");
	}

	private record ColumnMapping(List<String> columns, @Nullable String[] parameterColumns) {
	}

	static String camelCase(String column) {
		StringBuilder name = new StringBuilder(column.length());
		boolean upper = false;
		for (int i = 0; i < column.length(); i++) {
			char c = column.charAt(i);
			if (c == '_') {
				upper = name.length() > 0;
			}
			else {
				name.append(upper ? Character.toUpperCase(c) : c);
				upper = false;
			}
		}
		return name.toString();
	}

}
