/**
 * Replication slots, publications and server facts, over plain JDBC.
 */
@NullMarked
package io.postlog.admin;

import org.jspecify.annotations.NullMarked;
