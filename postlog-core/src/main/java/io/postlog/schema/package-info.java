/**
 * Schema changes of published tables: the shapes the stream's Relation messages announce,
 * compared with the last known shape of each table (with attribute numbers, nullability
 * and type names from the catalog where the table still exists), and the DDL messages of
 * postlog's event trigger where it is installed.
 */
@NullMarked
package io.postlog.schema;

import org.jspecify.annotations.NullMarked;
