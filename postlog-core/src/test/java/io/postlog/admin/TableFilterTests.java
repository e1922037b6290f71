package io.postlog.admin;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The lexical check that keeps a row filter one parenthesised expression, and the clause
 * a filter becomes in a publication.
 */
class TableFilterTests {

	@Test
	void expressionsWithQuotesAndParenthesesAreAccepted() {
		assertThat(RowFilterText.problem("status = 'open' AND (amount > 10 OR note = 'a;b)--')")).isNull();
		assertThat(RowFilterText.problem("\"Odd;Name\" = 'it''s'")).isNull();
		assertThat(RowFilterText.problem("id % 2 = 0")).isNull();
	}

	@Test
	void textThatCouldLeaveTheExpressionIsRefused() {
		assertThat(RowFilterText.problem("true; DROP TABLE t")).isEqualTo("it holds ';'");
		assertThat(RowFilterText.problem("true) OR (true")).isEqualTo("a ')' closes more than it opened");
		assertThat(RowFilterText.problem("(true")).isEqualTo("its parentheses do not balance");
		assertThat(RowFilterText.problem("true -- )")).isEqualTo("it holds a comment");
		assertThat(RowFilterText.problem("true /* ) */")).isEqualTo("it holds a comment");
		assertThat(RowFilterText.problem("a = $$)$$")).isEqualTo("it holds '$' (dollar quoting or parameters)");
		assertThat(RowFilterText.problem("a = E'\\')'")).isEqualTo("it holds '\\'");
		assertThat(RowFilterText.problem("a = 'open")).isEqualTo("a quoted text is not closed");
	}

	@Test
	void clauseQuotesColumnsAndParenthesisesTheRowFilter() {
		TableFilter filter = new TableFilter(" id > 1 ", List.of("id", "Name"));
		assertThat(filter.clause("\"public\".\"t\"")).isEqualTo("\"public\".\"t\" (\"id\", \"Name\") WHERE (id > 1)");
		assertThat(new TableFilter("  ", List.of()).isEmpty()).isTrue();
		assertThat(filter).hasToString("where (id > 1), columns [id, Name]");
	}

	@Test
	void invalidColumnNamesAreRefused() {
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> new TableFilter(null, List.of("")));
	}

	@Test
	void variablesOfAStoredRowFilterAreItsColumnNumbers() {
		assertThat(PublicationFilters.variables("{OPEXPR :opno 96 :args ({VAR :varno 1 :varattno 3 :vartype 23} "
				+ "{CONST :consttype 23}) } {VAR :varno 1 :varattno 1 :vartype 23}"))
			.containsExactly(1, 3);
		assertThat(PublicationFilters.variables(null)).isEmpty();
	}

}
