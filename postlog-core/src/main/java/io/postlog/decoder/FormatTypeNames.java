package io.postlog.decoder;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Maps the names {@code format_type} prints for built-in types ({@code integer},
 * {@code character varying(20)}, {@code timestamp(3) with time zone},
 * {@code numeric(10,2)[]}) to their {@code pg_catalog} names ({@code int4},
 * {@code varchar}, {@code timestamptz}, {@code _numeric}), so that a type a plugin names
 * that way can be announced the way pgoutput announces it. Stateless.
 */
final class FormatTypeNames {

	private static final Map<String, String> NAMES = Map.ofEntries(Map.entry("smallint", "int2"),
			Map.entry("integer", "int4"), Map.entry("bigint", "int8"), Map.entry("boolean", "bool"),
			Map.entry("real", "float4"), Map.entry("double precision", "float8"), Map.entry("numeric", "numeric"),
			Map.entry("text", "text"), Map.entry("character varying", "varchar"), Map.entry("character", "bpchar"),
			Map.entry("\"char\"", "char"), Map.entry("name", "name"), Map.entry("bytea", "bytea"),
			Map.entry("uuid", "uuid"), Map.entry("date", "date"), Map.entry("time without time zone", "time"),
			Map.entry("time with time zone", "timetz"), Map.entry("timestamp without time zone", "timestamp"),
			Map.entry("timestamp with time zone", "timestamptz"), Map.entry("interval", "interval"),
			Map.entry("json", "json"), Map.entry("jsonb", "jsonb"), Map.entry("xml", "xml"), Map.entry("inet", "inet"),
			Map.entry("cidr", "cidr"), Map.entry("macaddr", "macaddr"), Map.entry("macaddr8", "macaddr8"),
			Map.entry("money", "money"), Map.entry("bit", "bit"), Map.entry("bit varying", "varbit"),
			Map.entry("oid", "oid"), Map.entry("int2vector", "int2vector"), Map.entry("oidvector", "oidvector"));

	private FormatTypeNames() {
	}

	/**
	 * Returns the {@code pg_catalog} name of a built-in type printed by
	 * {@code format_type}.
	 * @param formatted the printed type
	 * @return its {@code pg_catalog} name, or {@code null} for a type not built in (or
	 * not decoded by postlog)
	 */
	static @Nullable String catalogName(String formatted) {
		String name = formatted.replaceAll("\\([0-9, ]*\\)", "");
		boolean array = name.endsWith("[]");
		if (array) {
			name = name.substring(0, name.length() - 2);
		}
		if (name.startsWith("interval ")) {
			name = "interval";
		}
		String catalogName = NAMES.get(name);
		if (catalogName == null) {
			return null;
		}
		return array ? "_" + catalogName : catalogName;
	}

}
