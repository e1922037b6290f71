/**
 * A real PostgreSQL for tests and samples, from zonky's embedded binaries.
 */
@NullMarked
package io.postlog.test;

import org.jspecify.annotations.NullMarked;
