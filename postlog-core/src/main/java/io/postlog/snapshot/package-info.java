/**
 * The initial snapshot: a slot created with an exported snapshot, every table read under
 * that snapshot in parallel chunks with {@code COPY}, each row handed to one caller
 * thread as an {@link io.postlog.Operation#SNAPSHOT} change, and the crash-safe hand-off
 * from the snapshot to the slot's stream.
 */
@NullMarked
package io.postlog.snapshot;

import org.jspecify.annotations.NullMarked;
