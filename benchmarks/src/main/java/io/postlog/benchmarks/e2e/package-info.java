/**
 * The end-to-end benchmark's Java legs, each a main class that {@code run-e2e.sh}
 * launches: read a slot until the expected number of changes arrived, then print one
 * {@code RESULT} line; and the initial snapshot's leg that {@code run-snapshot.sh}
 * launches.
 */
@NullMarked
package io.postlog.benchmarks.e2e;

import org.jspecify.annotations.NullMarked;
