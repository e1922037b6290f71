/**
 * Decoding of column values by type OID, in text and binary format.
 */
@NullMarked
package io.postlog.types;

import org.jspecify.annotations.NullMarked;
