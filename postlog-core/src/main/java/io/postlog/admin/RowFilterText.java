package io.postlog.admin;

import org.jspecify.annotations.Nullable;

/**
 * The lexical check of a row filter before it goes into {@code WHERE (…)}: it must stay
 * one parenthesised expression whatever it holds, so parentheses balance outside quoted
 * text, and nothing that could end the statement or hide text from this check (a
 * {@code ;}, a comment, dollar quoting) appears outside quotes. A backslash is refused
 * anywhere, so that escape strings cannot quote differently from how this check reads.
 */
final class RowFilterText {

	private RowFilterText() {
	}

	/**
	 * Returns why a row filter is refused.
	 * @param where the row filter
	 * @return the reason, or {@code null} when its shape is acceptable
	 */
	static @Nullable String problem(String where) {
		if (where.indexOf('\\') >= 0) {
			// Without backslashes, escape strings (E'…') read as plain ones do.
			return "it holds '\\'";
		}
		int depth = 0;
		int i = 0;
		while (i < where.length()) {
			char c = where.charAt(i);
			if (c == '\'' || c == '"') {
				int end = where.indexOf(c, i + 1);
				// A doubled quote inside a quoted text is the quote itself.
				while (end >= 0 && end + 1 < where.length() && where.charAt(end + 1) == c) {
					end = where.indexOf(c, end + 2);
				}
				if (end < 0) {
					return "a quoted text is not closed";
				}
				i = end + 1;
				continue;
			}
			if (c == ';') {
				return "it holds ';'";
			}
			if (c == '$') {
				return "it holds '$' (dollar quoting or parameters)";
			}
			if ((c == '-' || c == '/') && i + 1 < where.length() && where.charAt(i + 1) == ((c == '-') ? '-' : '*')) {
				return "it holds a comment";
			}
			if (c == '(') {
				depth++;
			}
			else if (c == ')' && --depth < 0) {
				return "a ')' closes more than it opened";
			}
			i++;
		}
		return (depth != 0) ? "its parentheses do not balance" : null;
	}

}
