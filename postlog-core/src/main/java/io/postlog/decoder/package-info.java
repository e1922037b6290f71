/**
 * The boundary between an output plugin and the rest of postlog: which plugin a slot is
 * made for, the options it streams with, how its tables are chosen, what it can carry,
 * and a per-stream decoder that turns its payloads into the messages pgoutput yields
 * ({@link io.postlog.pgoutput.PgOutputMessage}), so that everything downstream is the
 * same whatever the plugin: {@code pgoutput}, {@code wal2json} (format version 2) and
 * {@code pglogical} ({@code pglogical_output}'s native protocol).
 */
@NullMarked
package io.postlog.decoder;

import org.jspecify.annotations.NullMarked;
