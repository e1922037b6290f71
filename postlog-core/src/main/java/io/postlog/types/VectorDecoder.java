package io.postlog.types;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Decodes {@code int2vector} and {@code oidvector} into unmodifiable lists of their
 * element's Java type ({@code List<Short>}, {@code List<Long>}). Their text output is the
 * elements separated by single spaces (empty for no elements), not {@code array_out}'s
 * braces; their send function is {@code array_send} of a one-dimensional array with lower
 * bound 0, which holds no {@code NULL}s.
 */
final class VectorDecoder extends BuiltinDecoder {

	private final ValueDecoder element;

	private final ArrayDecoder binary;

	VectorDecoder(int oid, ValueDecoder element) {
		super(oid);
		this.element = element;
		this.binary = new ArrayDecoder(oid, element);
	}

	@Override
	Object text(byte[] utf8) {
		List<Object> items = new ArrayList<>();
		int start = 0;
		for (int i = 0; i <= utf8.length; i++) {
			if (i < utf8.length && utf8[i] != ' ') {
				continue;
			}
			if (i == start) {
				if (utf8.length == 0) {
					break;
				}
				throw malformed("empty element at offset " + i);
			}
			items.add(elementOf(Arrays.copyOfRange(utf8, start, i)));
			start = i + 1;
		}
		return Collections.unmodifiableList(items);
	}

	private Object elementOf(byte[] text) {
		Object value;
		try {
			value = this.element.decodeText(text);
		}
		catch (ValueDecodingException ex) {
			throw malformed("element is malformed: " + ex.reason());
		}
		if (value == null) {
			throw malformed("element decoded to null");
		}
		return value;
	}

	@Override
	Object binary(byte[] value) {
		List<?> items;
		try {
			items = (List<?>) this.binary.binary(value);
		}
		catch (ValueDecodingException ex) {
			throw malformed(ex.reason());
		}
		for (Object item : items) {
			if (!(item instanceof Short) && !(item instanceof Long)) {
				throw malformed("expected one dimension without NULL elements");
			}
		}
		return items;
	}

}
