/**
 * Heartbeats: a small write postlog makes at an interval so that an idle slot keeps
 * moving, and whose return through the stream proves the slot is being read.
 */
@NullMarked
package io.postlog.heartbeat;

import org.jspecify.annotations.NullMarked;
