package io.postlog.snapshot;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class ExportedSnapshotTests {

	@ParameterizedTest
	@ValueSource(
			strings = { "00000003-00000002-1", "00000071-0000000A-12", "FFFFFFFF-FFFFFFFF-4294967295", "00004E57-1" })
	void requireSnapshotNameAcceptsWhatServersExport(String name) {
		assertThat(ExportedSnapshot.requireSnapshotName(name)).isEqualTo(name);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "00000003-00000002-", "00000003-00000002-1'", "00000003-00000002-1; DROP TABLE t",
			"0000003-00000002-1", "00000003-00000002-1 ", " 00000003-00000002-1", "00000003-0000000a-1",
			"00000003-00000002-1\n", "00000003-00000002-12345678901", "00000003_00000002_1", "'", "\\x27",
			"00000003-00000002-00000004-1" })
	void requireSnapshotNameRefusesAnythingElse(String name) {
		assertThatExceptionOfType(InvalidSnapshotNameException.class)
			.isThrownBy(() -> ExportedSnapshot.requireSnapshotName(name))
			.withMessageStartingWith("Not an exported snapshot name");
	}

	@Test
	void refusedNameIsPrintedWithoutQuotesOrControlCharacters() {
		assertThatExceptionOfType(InvalidSnapshotNameException.class)
			.isThrownBy(() -> ExportedSnapshot.requireSnapshotName("x'\n\\y"))
			.withMessageContaining("x\\u0027\\u000a\\u005cy");
	}

	@Test
	void createCommandUsesTheOptionListFromPostgresql15On() {
		assertThat(ExportedSnapshot.createCommand(100023, "s", true))
			.isEqualTo("CREATE_REPLICATION_SLOT s TEMPORARY LOGICAL pgoutput EXPORT_SNAPSHOT");
		assertThat(ExportedSnapshot.createCommand(140018, "s", false))
			.isEqualTo("CREATE_REPLICATION_SLOT s LOGICAL pgoutput EXPORT_SNAPSHOT");
		assertThat(ExportedSnapshot.createCommand(150000, "s", true))
			.isEqualTo("CREATE_REPLICATION_SLOT s TEMPORARY LOGICAL pgoutput (SNAPSHOT 'export')");
		assertThat(ExportedSnapshot.createCommand(170006, "s", false))
			.isEqualTo("CREATE_REPLICATION_SLOT s LOGICAL pgoutput (SNAPSHOT 'export')");
	}

	@Test
	void createCommandChecksTheSlotName() {
		assertThatExceptionOfType(io.postlog.admin.InvalidIdentifierException.class)
			.isThrownBy(() -> ExportedSnapshot.createCommand(170006, "s LOGICAL x", false));
	}

}
