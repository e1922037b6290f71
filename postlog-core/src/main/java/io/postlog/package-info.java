/**
 * postlog's data model: WAL positions, tables, rows and the changes a listener receives.
 */
@NullMarked
package io.postlog;

import org.jspecify.annotations.NullMarked;
