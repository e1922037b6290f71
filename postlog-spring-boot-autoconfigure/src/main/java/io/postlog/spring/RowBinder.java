package io.postlog.spring;

import java.lang.reflect.Constructor;
import java.util.HashMap;
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

	private final ConversionService conversionService;

	RowBinder(Class<?> type, ConversionService conversionService) {
		this.type = type;
		this.constructor = BeanUtils.getResolvableConstructor(type);
		this.parameterNames = BeanUtils.getParameterNames(this.constructor);
		this.conversionService = conversionService;
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
		Map<String, String> columnsByName = new HashMap<>();
		for (String column : row.columns()) {
			columnsByName.putIfAbsent(camelCase(column), column);
			columnsByName.put(column, column);
		}
		@Nullable Object[] args = new Object[this.parameterNames.length];
		for (int i = 0; i < args.length; i++) {
			String name = this.parameterNames[i];
			String column = columnsByName.get(name);
			Object value = (column != null) ? row.get(column) : null;
			MethodParameter parameter = MethodParameter.forExecutable(this.constructor, i);
			if (value == UnchangedToast.INSTANCE) {
				value = null;
			}
			if (value == null) {
				if (parameter.getParameterType().isPrimitive()) {
					throw new PostlogException("Cannot bind "
							+ table + " to " + this.type.getName() + ": " + ((column != null)
									? "column '" + column + "' is null or unchanged" : "no column for '" + name + "'")
							+ " but the parameter is primitive");
				}
				continue;
			}
			try {
				args[i] = this.conversionService.convert(value, TypeDescriptor.forObject(value),
						new TypeDescriptor(parameter));
			}
			catch (ConversionException ex) {
				throw failure(column, table, name, ex);
			}
		}
		return BeanUtils.instantiateClass(this.constructor, args);
	}

	private PostlogException failure(@Nullable String column, TableId table, String target, Exception ex) {
		return new PostlogException("Cannot bind column '" + column + "' of " + table + " to '" + target + "' of "
				+ this.type.getName() + " (" + ex.getClass().getSimpleName() + ")");
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
