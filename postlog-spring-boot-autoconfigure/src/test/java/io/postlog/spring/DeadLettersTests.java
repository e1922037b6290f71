package io.postlog.spring;

import java.util.function.Function;

import io.postlog.TableId;
import io.postlog.admin.InvalidIdentifierException;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The dead-letter table's name is the user's choice, checked before any SQL: a name
 * PostgreSQL would truncate is refused, a valid one is quoted into the DDL.
 */
class DeadLettersTests {

	private final JdbcTemplate unused = new JdbcTemplate();

	@Test
	void aTableNameTooLongForPostgresqlIsRefused() {
		TableId tooLong = new TableId("public", "d".repeat(64));
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> new PostlogDeadLetterErrorHandler(this.unused, Function.identity(), tooLong));
	}

	@Test
	void aChosenTableIsQuotedIntoTheDdl() {
		assertThat(PostlogDeadLetterErrorHandler.ddl("\"ops\".\"failed changes\""))
			.startsWith("CREATE TABLE IF NOT EXISTS \"ops\".\"failed changes\" (");
		assertThat(PostlogDeadLetterErrorHandler.DDL).startsWith("CREATE TABLE IF NOT EXISTS postlog_dead_letter (");
	}

}
