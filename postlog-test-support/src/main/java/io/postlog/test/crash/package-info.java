/**
 * One crash harness for the SIGKILL proofs: {@link io.postlog.test.crash.ChildJvm} runs
 * the process under test, {@link io.postlog.test.crash.KillLoop} chooses the kill points
 * from a logged, replayable seed, {@link io.postlog.test.crash.SourceWriter} commits
 * numbered transactions meanwhile and {@link io.postlog.test.crash.SlotProbe} reads the
 * replication slot between kills.
 */
@NullMarked
package io.postlog.test.crash;

import org.jspecify.annotations.NullMarked;
