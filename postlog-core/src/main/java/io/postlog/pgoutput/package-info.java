/**
 * Pure, stateless decoding of the pgoutput logical replication protocol.
 */
@NullMarked
package io.postlog.pgoutput;

import org.jspecify.annotations.NullMarked;
