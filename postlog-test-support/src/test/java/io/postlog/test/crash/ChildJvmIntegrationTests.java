package io.postlog.test.crash;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link ChildJvm} on real child JVMs: it passes arguments and properties, waits for a
 * readiness line, kills with SIGKILL, stops through standard input, and reports a child
 * that died early with its output.
 */
class ChildJvmIntegrationTests {

	@TempDir
	Path directory;

	@Test
	void childReceivesArgumentsAndPropertiesAndIsKilledWithSigkill() {
		try (ChildJvm child = ChildJvm.of(ReadyChild.class)
			.systemProperty("child.greeting", "hello")
			.args("a", 2)
			.start(this.directory.resolve("child.log"))) {
			assertThat(child.awaitLine("greeting=", Duration.ofSeconds(60))).isEqualTo("greeting=hello args=a,2");
			child.awaitOutput("ready", Duration.ofSeconds(60));
			assertThat(ProcessHandle.of(child.pid())).isPresent();
			child.kill();
			assertThat(child.isAlive()).isFalse();
			// 128 + SIGKILL: the JVM had no chance to run its shutdown.
			assertThat(child.awaitExit(Duration.ofSeconds(1))).isEqualTo(137);
			assertThat(child.output()).doesNotContain("stopping");
		}
	}

	@Test
	void stopClosesStandardInputAndTheChildExitsCleanly() {
		try (ChildJvm child = ChildJvm.of(ReadyChild.class).start(this.directory.resolve("child.log"))) {
			child.awaitOutput("ready", Duration.ofSeconds(60));
			assertThat(child.stop(Duration.ofSeconds(30))).isTrue();
			assertThat(child.awaitExit(Duration.ofSeconds(1))).isZero();
			assertThat(child.output()).contains("stopping");
		}
	}

	@Test
	void awaitingALineTheChildNeverPrintsFailsWithItsOutputOnceItExits() {
		try (ChildJvm child = ChildJvm.of(ReadyChild.class).args("exit=3").start(this.directory.resolve("child.log"))) {
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> child.awaitOutput("ready", Duration.ofSeconds(60)))
				.withMessageContaining("exited with 3")
				.withMessageContaining("leaving");
		}
	}

	@Test
	void killAfterFailsWhenTheChildExitedBeforeTheKill() {
		try (ChildJvm child = ChildJvm.of(ReadyChild.class).args("exit=0").start(this.directory.resolve("child.log"))) {
			assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> child.killAfter(Duration.ofSeconds(30)))
				.withMessageContaining("before it was killed")
				.withMessageContaining("leaving");
		}
	}

	@Test
	void closeReapsAChildStillRunning() {
		ChildJvm child = ChildJvm.of(ReadyChild.class)
			.startupFlags(java.util.List.of())
			.start(this.directory.resolve("child.log"));
		child.awaitOutput("ready", Duration.ofSeconds(60));
		child.close();
		assertThat(child.isAlive()).isFalse();
		assertThat(ProcessHandle.of(child.pid()).map(ProcessHandle::isAlive)).isIn(java.util.Optional.empty(),
				java.util.Optional.of(false));
	}

}
