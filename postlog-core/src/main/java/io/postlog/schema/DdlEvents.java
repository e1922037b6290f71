package io.postlog.schema;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import io.postlog.PostlogException;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.ServerVersionException;

/**
 * postlog's event triggers ({@code postlog.schema.ddl-events}, PostgreSQL 14+): at
 * {@code ddl_command_end} of every command on a table, and at {@code sql_drop} of a
 * table, they emit the table's shape before the command and after it (attribute numbers,
 * names, types, nullability, replica identity; {@link DdlMessage} reads it) as a
 * transactional logical message with prefix {@value #PREFIX}, in the DDL's own
 * transaction, so that the stream classifies every schema change exactly, by attribute
 * number, at its commit, also when the message is the first a new process reads of the
 * table. The shape before comes from {@code public.postlog_ddl_shapes}, where the
 * triggers keep each table's shape as of its last command; installing fills it for the
 * tables it lacks, as they are then. Temporary tables are left out. Installing needs the
 * right to create event triggers (a superuser before PostgreSQL 17 as after it); the
 * trigger functions run as their owner, so a role running DDL needs no right on the
 * shapes table. Stateless.
 */
public final class DdlEvents {

	/** The prefix of the messages the triggers emit. */
	public static final String PREFIX = "postlog.ddl";

	/** The first server version whose pgoutput sends logical messages. */
	static final int VERSION = 140000;

	private static final String FIELD = """
			CREATE OR REPLACE FUNCTION public.postlog_ddl_field(v text) RETURNS text LANGUAGE sql IMMUTABLE AS
			$f$ SELECT octet_length(v) || ':' || v $f$""";

	/**
	 * A table's shape as the messages carry it: schema, name, and per column its
	 * attribute number, name, type OID, type modifier, printed type, NOT NULL and replica
	 * identity membership; {@code null} for anything but an ordinary or partitioned table
	 * that is not temporary.
	 */
	private static final String SHAPE = """
			CREATE OR REPLACE FUNCTION public.postlog_ddl_shape(rel oid) RETURNS text LANGUAGE sql STABLE
			SET search_path = pg_catalog, pg_temp AS $f$
			  SELECT public.postlog_ddl_field(n.nspname) || public.postlog_ddl_field(cl.relname)
			         || COALESCE((SELECT string_agg(public.postlog_ddl_field(a.attnum::text)
			              || public.postlog_ddl_field(a.attname) || public.postlog_ddl_field(a.atttypid::text)
			              || public.postlog_ddl_field(a.atttypmod::text)
			              || public.postlog_ddl_field(format_type(a.atttypid, a.atttypmod))
			              || public.postlog_ddl_field(a.attnotnull::text)
			              || public.postlog_ddl_field((CASE cl.relreplident WHEN 'f' THEN true WHEN 'n' THEN false
			                   ELSE EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = cl.oid
			                        AND CASE cl.relreplident WHEN 'd' THEN i.indisprimary ELSE i.indisreplident END
			                        AND a.attnum = ANY (i.indkey)) END)::text), '' ORDER BY a.attnum)
			       FROM pg_attribute a WHERE a.attrelid = cl.oid AND a.attnum > 0 AND NOT a.attisdropped
			         AND a.attgenerated = ''), '')
			  FROM pg_class cl JOIN pg_namespace n ON n.oid = cl.relnamespace
			  WHERE cl.oid = rel AND cl.relkind IN ('r', 'p') AND cl.relpersistence <> 't'
			$f$""";

	/**
	 * Each table's shape as of its last command, so that the next command's message
	 * carries the shape before it too. A logged table, so that it survives a crash and a
	 * failover with the DDL it describes.
	 */
	private static final String SHAPES = """
			CREATE TABLE IF NOT EXISTS public.postlog_ddl_shapes (relid oid PRIMARY KEY, shape text NOT NULL)""";

	/**
	 * Keeps the shapes of the tables that have none, as they are now (the shape before
	 * their next command), and forgets tables that no longer exist.
	 */
	private static final String KEEP = """
			WITH gone AS (DELETE FROM public.postlog_ddl_shapes s
			              WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class cl WHERE cl.oid = s.relid))
			INSERT INTO public.postlog_ddl_shapes (relid, shape)
			SELECT cl.oid, public.postlog_ddl_shape(cl.oid) FROM pg_catalog.pg_class cl
			  JOIN pg_catalog.pg_namespace n ON n.oid = cl.relnamespace
			 WHERE cl.relkind IN ('r', 'p') AND cl.relpersistence <> 't'
			   AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'
			   AND NOT EXISTS (SELECT 1 FROM public.postlog_ddl_shapes s WHERE s.relid = cl.oid)
			ON CONFLICT (relid) DO NOTHING""";

	/**
	 * Runs as its owner (who installed it), so that the role running a DDL needs no right
	 * on the shapes table; its search path is fixed for that reason.
	 */
	private static final String ON_COMMAND = """
			CREATE OR REPLACE FUNCTION public.postlog_ddl_command() RETURNS event_trigger LANGUAGE plpgsql
			SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$
			DECLARE r record; shape_before text; shape_after text;
			BEGIN
			  FOR r IN SELECT c.objid, c.command_tag
			             FROM (SELECT DISTINCT d.objid, d.command_tag FROM pg_event_trigger_ddl_commands() d
			                   WHERE d.classid = 'pg_class'::regclass AND d.object_type IN ('table', 'table column')) c
			            ORDER BY c.command_tag <> 'CREATE TABLE' LOOP
			    shape_after := public.postlog_ddl_shape(r.objid);
			    CONTINUE WHEN shape_after IS NULL;
			    shape_before := NULL;
			    IF r.command_tag <> 'CREATE TABLE' THEN
			      SELECT s.shape INTO shape_before FROM public.postlog_ddl_shapes s WHERE s.relid = r.objid;
			    END IF;
			    PERFORM pg_logical_emit_message(true, 'postlog.ddl', public.postlog_ddl_field('2')
			      || public.postlog_ddl_field(r.command_tag) || public.postlog_ddl_field(r.objid::text)
			      || public.postlog_ddl_field(COALESCE(shape_before, '')) || public.postlog_ddl_field(shape_after));
			    INSERT INTO public.postlog_ddl_shapes AS s (relid, shape) VALUES (r.objid, shape_after)
			      ON CONFLICT (relid) DO UPDATE SET shape = excluded.shape;
			  END LOOP;
			END $f$""";

	private static final String ON_DROP = """
			CREATE OR REPLACE FUNCTION public.postlog_ddl_drop() RETURNS event_trigger LANGUAGE plpgsql
			SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$
			DECLARE r record; shape_before text;
			BEGIN
			  FOR r IN SELECT * FROM pg_event_trigger_dropped_objects()
			           WHERE object_type = 'table' AND NOT is_temporary LOOP
			    shape_before := NULL;
			    DELETE FROM public.postlog_ddl_shapes s WHERE s.relid = r.objid RETURNING s.shape INTO shape_before;
			    PERFORM pg_logical_emit_message(true, 'postlog.ddl', public.postlog_ddl_field('2')
			      || public.postlog_ddl_field('DROP TABLE') || public.postlog_ddl_field(r.objid::text)
			      || public.postlog_ddl_field(COALESCE(shape_before, '')) || public.postlog_ddl_field(''));
			  END LOOP;
			END $f$""";

	private static final String TRIGGERS = """
			DO $d$ BEGIN
			  IF NOT EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname = 'postlog_ddl_command') THEN
			    CREATE EVENT TRIGGER postlog_ddl_command ON ddl_command_end
			      EXECUTE FUNCTION public.postlog_ddl_command();
			  END IF;
			  IF NOT EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname = 'postlog_ddl_drop') THEN
			    CREATE EVENT TRIGGER postlog_ddl_drop ON sql_drop EXECUTE FUNCTION public.postlog_ddl_drop();
			  END IF;
			END $d$""";

	private DdlEvents() {
	}

	/**
	 * Installs the event triggers and their functions, or leaves them as they are.
	 * @param connection a connection to the streamed database, allowed to create event
	 * triggers
	 * @throws ServerVersionException before PostgreSQL 14, naming the version
	 * @throws PostlogException if installing fails
	 */
	public static void install(Connection connection) {
		int version = new ReplicationAdmin(connection).serverVersion();
		if (version < VERSION) {
			throw new ServerVersionException("postlog.schema.ddl-events (DDL as transactional logical messages)",
					VERSION, version);
		}
		run(connection, "Installing postlog's DDL event triggers", FIELD, SHAPE, SHAPES, KEEP, ON_COMMAND, ON_DROP,
				TRIGGERS);
	}

	/**
	 * Removes the event triggers and their functions, if they exist.
	 * @param connection a connection to the streamed database
	 * @throws PostlogException if removing fails
	 */
	public static void remove(Connection connection) {
		run(connection, "Removing postlog's DDL event triggers", "DROP EVENT TRIGGER IF EXISTS postlog_ddl_command",
				"DROP EVENT TRIGGER IF EXISTS postlog_ddl_drop", "DROP FUNCTION IF EXISTS public.postlog_ddl_command()",
				"DROP FUNCTION IF EXISTS public.postlog_ddl_drop()", "DROP TABLE IF EXISTS public.postlog_ddl_shapes",
				"DROP FUNCTION IF EXISTS public.postlog_ddl_shape(oid)",
				"DROP FUNCTION IF EXISTS public.postlog_ddl_field(text)");
	}

	private static void run(Connection connection, String what, String... statements) {
		try (Statement statement = connection.createStatement()) {
			for (String sql : statements) {
				statement.execute(sql);
			}
		}
		catch (SQLException ex) {
			// The SQLState stays on the cause (PostlogException.sqlState()).
			throw new PostlogException(what + " failed: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Reads one message of the triggers: fields written as their length in bytes, a colon
	 * and their UTF-8 text, so that no name needs escaping.
	 * @param content the message content
	 * @return the fields in order
	 * @throws PostlogException if the content is not such a message
	 */
	static List<String> fields(byte[] content) {
		List<String> fields = new ArrayList<>();
		int at = 0;
		while (at < content.length) {
			int length = 0;
			int digits = 0;
			while (at < content.length && content[at] != ':') {
				int digit = content[at] - '0';
				if (digit < 0 || digit > 9 || ++digits > 9) {
					throw malformed(at);
				}
				length = length * 10 + digit;
				at++;
			}
			if (at >= content.length || digits == 0 || content.length - at - 1 < length) {
				throw malformed(at);
			}
			fields.add(new String(content, at + 1, length, StandardCharsets.UTF_8));
			at += 1 + length;
		}
		return fields;
	}

	private static PostlogException malformed(int offset) {
		return new PostlogException("A '" + PREFIX + "' message is malformed at byte " + offset);
	}

}
