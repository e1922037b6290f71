package io.postlog.spring;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.UnchangedToast;
import org.junit.jupiter.api.Test;

import org.springframework.boot.convert.ApplicationConversionService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class RowBinderTests {

	private static final TableId TABLE = TableId.parse("orders");

	@Test
	void camelCaseTurnsSnakeCaseIntoJavaNames() {
		assertThat(RowBinder.camelCase("order_id")).isEqualTo("orderId");
		assertThat(RowBinder.camelCase("a_b_c")).isEqualTo("aBC");
		assertThat(RowBinder.camelCase("_id")).isEqualTo("id");
		assertThat(RowBinder.camelCase("total")).isEqualTo("total");
	}

	@Test
	void bindsRecordConvertingValuesAndLeavingMissingColumnsNull() {
		Object bound = binder(Line.class).bind(row(), TABLE);
		assertThat(bound).isEqualTo(new Line(3L, "12.50", null));
	}

	@Test
	void bindsBeanPropertiesAndSkipsUnchangedToast() {
		LineBean bean = (LineBean) binder(LineBean.class).bind(row(), TABLE);
		assertThat(bean.getLineNo()).isEqualTo(3);
		assertThat(bean.getAmount()).isEqualByComparingTo("12.50");
		assertThat(bean.getNote()).isEqualTo("unset");
	}

	@Test
	void bindsRowsOfChangingColumnLayoutsWithOneBinder() {
		RowBinder binder = binder(Line.class);
		Row renamed = Row.of(Map.of("amount", "1.00", "missing_column", "here"));
		assertThat(binder.bind(row(), TABLE)).isEqualTo(new Line(3L, "12.50", null));
		assertThat(binder.bind(renamed, TABLE)).isEqualTo(new Line(null, "1.00", "here"));
		assertThat(binder.bind(row(), TABLE)).isEqualTo(new Line(3L, "12.50", null));
	}

	@Test
	void convertsCollectionElementsToTheParameterElementType() {
		Row row = Row.of(Map.of("ids", List.of(1, 2)));
		Ids bound = (Ids) binder(Ids.class).bind(row, TABLE);
		assertThat(bound.ids()).containsExactly(1L, 2L);
		assertThat(bound.ids().get(0)).isInstanceOf(Long.class);
	}

	private static RowBinder binder(Class<?> type) {
		return new RowBinder(type, ApplicationConversionService.getSharedInstance());
	}

	private static Row row() {
		Map<String, Object> values = new LinkedHashMap<>();
		values.put("line_no", 3);
		values.put("amount", new BigDecimal("12.50"));
		values.put("note", UnchangedToast.INSTANCE);
		return Row.of(values);
	}

	@Test
	void checkRefusesAComponentThatMatchesNoColumnNamingListenerTableAndComponent() {
		assertThatExceptionOfType(ListenerBindingException.class)
			.isThrownBy(() -> binder(Line.class).check("lines", TABLE, columns(), null))
			.withMessage("Listener 'lines' cannot bind table public.orders to " + Line.class.getName()
					+ ": component 'missingColumn' matches no column (columns: line_no, amount, note); rename it, "
					+ "or bind to Row or Map<String, Object>")
			.satisfies((ex) -> assertThat(ex.component()).isEqualTo("missingColumn"));
	}

	@Test
	void checkRefusesAPrimitiveComponentOfANullableColumn() {
		Map<String, Boolean> columns = new LinkedHashMap<>(columns());
		columns.put("line_no", false);
		assertThatExceptionOfType(ListenerBindingException.class)
			.isThrownBy(() -> binder(PrimitiveLine.class).check("lines", TABLE, columns, null))
			.withMessageEndingWith("component 'lineNo' is a primitive long but column 'line_no' can be NULL; "
					+ "declare it Long, or make the column NOT NULL");
	}

	@Test
	void checkRefusesAPrimitiveComponentAbsentFromKeyOnlyDeleteImages() {
		Map<String, Boolean> columns = new LinkedHashMap<>(columns());
		columns.put("amount", true);
		assertThatExceptionOfType(ListenerBindingException.class)
			.isThrownBy(() -> binder(PrimitiveAmount.class).check("lines", TABLE, columns, List.of("line_no")))
			.withMessageContaining("component 'amount' is a primitive double but column 'amount' is absent from "
					+ "DELETE images, which carry only the replica identity columns (line_no)")
			.withMessageContaining("REPLICA IDENTITY FULL");
	}

	@Test
	void checkAcceptsMatchingComponentsAndWholeRowDeletes() {
		Map<String, Boolean> columns = new LinkedHashMap<>(columns());
		columns.put("amount", true);
		binder(PrimitiveAmount.class).check("lines", TABLE, columns, null);
		binder(PrimitiveAmount.class).check("lines", TABLE, columns, List.of("line_no", "amount"));
		binder(LineBean.class).check("lines", TABLE, Map.of("other", false), List.of("other"));
	}

	private static Map<String, Boolean> columns() {
		Map<String, Boolean> columns = new LinkedHashMap<>();
		columns.put("line_no", true);
		columns.put("amount", false);
		columns.put("note", false);
		return columns;
	}

	record Line(Long lineNo, String amount, String missingColumn) {
	}

	record PrimitiveLine(long lineNo, String amount) {
	}

	record PrimitiveAmount(long lineNo, double amount) {
	}

	record Ids(List<Long> ids) {
	}

	static class LineBean {

		private int lineNo;

		private BigDecimal amount;

		private String note = "unset";

		public int getLineNo() {
			return this.lineNo;
		}

		public void setLineNo(int lineNo) {
			this.lineNo = lineNo;
		}

		public BigDecimal getAmount() {
			return this.amount;
		}

		public void setAmount(BigDecimal amount) {
			this.amount = amount;
		}

		public String getNote() {
			return this.note;
		}

		public void setNote(String note) {
			this.note = note;
		}

	}

}
