package io.postlog.spring;

import java.lang.reflect.Method;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.postlog.Acknowledgment;
import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.PostlogException;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.Transaction;
import org.junit.jupiter.api.Test;

import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.util.PropertyPlaceholderHelper;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringValueResolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class ListenerMethodResolverTests {

	private static final Lsn COMMIT = Lsn.parse("0/16B374D");

	private static final TableId ORDERS = TableId.parse("orders");

	private static final TableId ITEMS = TableId.parse("shop.items");

	private static final ListenerMethodResolver RESOLVER = new ListenerMethodResolver(
			new PropertyPlaceholderHelperResolver(Map.of("app.tables", "orders, shop.items", "app.id", "resolved-id",
					"app.lanes", "4", "app.group", "search")),
			ApplicationConversionService.getSharedInstance());

	private final Listeners listeners = new Listeners();

	@Test
	void changeListenerReceivesEveryChangeIncludingTruncatesWithItsCommitLsn() {
		ListenerEndpoint endpoint = endpoint("onChange");
		Change insert = change(Operation.INSERT, ORDERS, 0);
		Change truncate = change(Operation.TRUNCATE, ITEMS, 1);
		deliver(endpoint, insert);
		deliver(endpoint, truncate);
		assertThat(this.listeners.calls).containsExactly(List.of(insert, COMMIT), List.of(truncate, COMMIT));
	}

	@Test
	void operationFilterDropsOtherOperations() {
		ListenerEndpoint endpoint = endpoint("onDelete");
		Change delete = change(Operation.DELETE, ORDERS, 1);
		deliver(endpoint, change(Operation.INSERT, ORDERS, 0));
		deliver(endpoint, delete);
		assertThat(this.listeners.calls).containsExactly(List.of(delete));
	}

	@Test
	void rowListenerReceivesAfterRowAndBeforeRowForDeletesButNoTruncates() {
		ListenerEndpoint endpoint = endpoint("onRow");
		Change insert = change(Operation.INSERT, ORDERS, 0);
		Change delete = change(Operation.DELETE, ORDERS, 1);
		deliver(endpoint, insert);
		deliver(endpoint, delete);
		deliver(endpoint, change(Operation.TRUNCATE, ORDERS, 2));
		assertThat(this.listeners.calls).containsExactly(List.of(insert.after()), List.of(delete.before()));
	}

	@Test
	void mapListenerReceivesTheRowAsAMap() {
		deliver(endpoint("onMap"), change(Operation.INSERT, ORDERS, 0));
		Map<String, Object> expected = new LinkedHashMap<>();
		expected.put("order_id", 7);
		expected.put("customer_name", "ada");
		assertThat(this.listeners.calls).containsExactly(List.of(expected));
	}

	@Test
	void recordListenerReceivesTheRowBoundBySnakeCaseNamesWithConversion() {
		deliver(endpoint("onRecord"), change(Operation.INSERT, ORDERS, 0));
		assertThat(this.listeners.calls).containsExactly(List.of(new Order(7L, "ada")));
	}

	@Test
	void transactionListenerReceivesOnlyMatchingChanges() {
		ListenerEndpoint endpoint = endpoint("onTransaction");
		Change order = change(Operation.INSERT, ORDERS, 0);
		Change item = change(Operation.INSERT, ITEMS, 1);
		deliver(endpoint, order);
		deliver(endpoint, transaction(order, item));
		assertThat(this.listeners.calls).containsExactly(List.of(transaction(order)));
	}

	@Test
	void transactionListenerIsNotCalledWithoutMatchingChanges() {
		deliver(endpoint("onTransaction"), transaction(change(Operation.INSERT, ITEMS, 0)));
		deliver(endpoint("onList"), transaction());
		assertThat(this.listeners.calls).isEmpty();
	}

	@Test
	void listListenerReceivesTheMatchingChangesIncludingTruncates() {
		Change truncate = change(Operation.TRUNCATE, ORDERS, 1);
		Change insert = change(Operation.INSERT, ORDERS, 0);
		deliver(endpoint("onList"), transaction(insert, truncate));
		assertThat(this.listeners.calls).containsExactly(List.of(List.of(insert, truncate)));
	}

	@Test
	void messageListenerReceivesOnlyItsPrefix() throws Exception {
		Method method = Listeners.class.getDeclaredMethod("onMessage", LogicalMessage.class);
		ListenerEndpoint endpoint = RESOLVER.resolve(this.listeners, method,
				method.getAnnotation(PgMessageListener.class));
		MessageInvoker invoker = (MessageInvoker) endpoint.invoker();
		LogicalMessage audit = new LogicalMessage("audit", new byte[] { 1 }, true, COMMIT);
		invoker.invoke(new LogicalMessage("audit.other", new byte[0], true, COMMIT));
		invoker.invoke(audit);
		assertThat(this.listeners.calls).containsExactly(List.of(audit));
	}

	@Test
	void listenerExceptionIsWrappedOnceNamingListenerAndTableButNoValue() {
		ListenerEndpoint endpoint = endpoint("failing");
		assertThatExceptionOfType(ListenerExecutionFailedException.class)
			.isThrownBy(() -> deliver(endpoint, change(Operation.INSERT, ORDERS, 0)))
			.withMessage("Listener 'Listeners.failing' failed on INSERT on public.orders (commit LSN 0/16B374D, "
					+ "change id postlog/0/16B374D/0)")
			.withCauseExactlyInstanceOf(IllegalStateException.class)
			.satisfies((ex) -> assertThat(ex.getMessage()).doesNotContain("ada"));
	}

	@Test
	void alreadyWrappedExceptionIsNotWrappedAgain() {
		ListenerEndpoint endpoint = endpoint("rethrowing");
		assertThatExceptionOfType(ListenerExecutionFailedException.class)
			.isThrownBy(() -> deliver(endpoint, change(Operation.INSERT, ORDERS, 0)))
			.withMessage("Listener 'inner' failed on x")
			.withNoCause();
	}

	@Test
	void bindingFailureNamesColumnAndTypeButNoValue() {
		ListenerEndpoint endpoint = endpoint("onBadRecord");
		assertThatExceptionOfType(ListenerExecutionFailedException.class)
			.isThrownBy(() -> deliver(endpoint, change(Operation.INSERT, ORDERS, 0)))
			.withMessageStartingWith("Listener 'Listeners.onBadRecord' failed on INSERT on public.orders")
			.havingCause()
			.withMessageContaining("customer_name")
			.withMessageContaining(BadOrder.class.getName())
			.withMessageNotContaining("ada");
	}

	@Test
	void unsupportedSignaturesFailNamingTheMethod() {
		for (String name : List.of("noPayload", "twoPayloads", "stringPayload", "listOfStrings", "mapOfIntegers")) {
			Method method = method(name);
			assertThatExceptionOfType(PostlogException.class)
				.isThrownBy(
						() -> RESOLVER.resolve(this.listeners, method, method.getAnnotation(PgChangeListener.class)))
				.withMessageContaining("ListenerMethodResolverTests$Listeners." + name + "(")
				.withMessageContaining("is not supported");
		}
	}

	@Test
	void placeholdersResolveInTablesIdConcurrencyAndGroup() {
		ListenerEndpoint endpoint = endpoint("placeholders");
		assertThat(endpoint.tables()).containsExactlyInAnyOrder(ORDERS, ITEMS);
		assertThat(endpoint.id()).isEqualTo("resolved-id");
		assertThat(endpoint.concurrency()).isEqualTo(4);
		assertThat(endpoint.group()).isEqualTo("search");
	}

	@Test
	void concurrencyThatIsNoPositiveIntegerIsRefusedNamingTheMethod() {
		assertThatExceptionOfType(PostlogException.class).isThrownBy(() -> endpoint("badConcurrency"))
			.withMessageContaining("Listeners.badConcurrency(Change)")
			.withMessageContaining("concurrency 'many' is not a positive integer");
	}

	@Test
	void concurrencyOfATransactionListenerIsRefusedWithTheReason() {
		assertThatExceptionOfType(PostlogException.class).isThrownBy(() -> endpoint("concurrentTransaction"))
			.withMessageContaining("Listeners.concurrentTransaction(Transaction)")
			.withMessageContaining("concurrency 4 is only for Change, Row, Map and record listeners");
		assertThatExceptionOfType(PostlogException.class).isThrownBy(() -> endpoint("concurrentList"))
			.withMessageContaining("concurrency 2 is only for Change, Row, Map and record listeners");
	}

	@Test
	void operationAndAcknowledgmentParametersAreGivenToARecordListener() {
		ListenerEndpoint endpoint = endpoint("withOperationAndAcknowledgment");
		Change delete = change(Operation.DELETE, ORDERS, 0);
		Acknowledgment acknowledgment = () -> {
		};
		((ChangeInvoker) endpoint.invoker()).invoke(delete, acknowledgment);
		assertThat(this.listeners.calls)
			.containsExactly(List.of(new Order(7L, "ada"), Operation.DELETE, acknowledgment, COMMIT));
		assertThat(((ChangeInvoker) endpoint.invoker()).method().takesAcknowledgment()).isTrue();
	}

	@Test
	void operationParameterIsRefusedOnATransactionListener() {
		assertThatExceptionOfType(PostlogException.class).isThrownBy(() -> endpoint("transactionWithOperation"))
			.withMessageContaining("an Operation parameter is for change-shaped listeners");
	}

	@Test
	void tablesAndOperationsDefaultToAll() {
		ListenerEndpoint endpoint = endpoint("onChange");
		assertThat(endpoint.tables()).isEmpty();
		assertThat(endpoint.operations()).containsExactlyInAnyOrder(Operation.values());
		assertThat(endpoint("onRow").tables()).isEqualTo(Set.of(ORDERS));
	}

	private ListenerEndpoint endpoint(String name) {
		Method method = method(name);
		return RESOLVER.resolve(this.listeners, method, method.getAnnotation(PgChangeListener.class));
	}

	/** Delivers a change as the consumer does: through the filter, then the invoker. */
	private static void deliver(ListenerEndpoint endpoint, Change change) {
		if (endpoint.invoker() instanceof ChangeInvoker invoker && endpoint.matches(change)) {
			invoker.invoke(change, null);
		}
	}

	/** Delivers a transaction as the consumer does: only matching changes, none skips. */
	private static void deliver(ListenerEndpoint endpoint, Transaction transaction) {
		List<Change> matching = transaction.changes().stream().filter(endpoint::matches).toList();
		if (endpoint.invoker() instanceof TransactionInvoker invoker && !matching.isEmpty()) {
			invoker.invoke(new Transaction(transaction.xid(), transaction.commitLsn(), transaction.endLsn(),
					transaction.commitTime(), transaction.origin(), matching), null);
		}
	}

	private static Method method(String name) {
		for (Method method : ReflectionUtils.getDeclaredMethods(Listeners.class)) {
			if (method.getName().equals(name)) {
				return method;
			}
		}
		throw new IllegalArgumentException(name);
	}

	private static Change change(Operation operation, TableId table, int index) {
		Row row = Row.of(rowValues());
		Row after = (operation == Operation.INSERT || operation == Operation.UPDATE) ? row : null;
		Row before = (operation == Operation.DELETE) ? row : null;
		return new Change(operation, table, before, after, 42, COMMIT, Instant.EPOCH, index,
				Change.id("postlog", COMMIT, index));
	}

	private static Map<String, Object> rowValues() {
		Map<String, Object> values = new LinkedHashMap<>();
		values.put("order_id", 7);
		values.put("customer_name", "ada");
		return values;
	}

	private static Transaction transaction(Change... changes) {
		return new Transaction(42, COMMIT, Lsn.of(COMMIT.value() + 8), Instant.EPOCH, null, List.of(changes));
	}

	record Order(long orderId, String customerName) {
	}

	record PropertyPlaceholderHelperResolver(Map<String, String> values) implements StringValueResolver {

		@Override
		public String resolveStringValue(String text) {
			return new PropertyPlaceholderHelper("${", "}").replacePlaceholders(text, this.values::get);
		}

	}

	record BadOrder(long orderId, java.util.UUID customerName) {
	}

	static class Listeners {

		final List<List<Object>> calls = new ArrayList<>();

		@PgChangeListener
		void onChange(Change change, Lsn lsn) {
			this.calls.add(List.of(change, lsn));
		}

		@PgChangeListener(tables = "orders", operations = Operation.DELETE)
		void onDelete(Change change) {
			this.calls.add(List.of(change));
		}

		@PgChangeListener(tables = "orders")
		void onRow(Row row) {
			this.calls.add(List.of(row));
		}

		@PgChangeListener
		void onMap(Map<String, Object> row) {
			this.calls.add(List.of(row));
		}

		@PgChangeListener
		void onRecord(Order order) {
			this.calls.add(List.of(order));
		}

		@PgChangeListener
		void onBadRecord(BadOrder order) {
			this.calls.add(List.of(order));
		}

		@PgChangeListener(tables = "public.orders")
		void onTransaction(Transaction transaction) {
			this.calls.add(List.of(transaction));
		}

		@PgChangeListener(tables = "orders")
		void onList(List<Change> changes) {
			this.calls.add(List.of(changes));
		}

		@PgMessageListener(prefix = "audit")
		void onMessage(LogicalMessage message) {
			this.calls.add(List.of(message));
		}

		@PgChangeListener
		void failing(Row row) {
			throw new IllegalStateException("boom");
		}

		@PgChangeListener
		void rethrowing(Row row) {
			throw new ListenerExecutionFailedException("inner", "x", null);
		}

		@PgChangeListener
		void noPayload(Lsn lsn) {
		}

		@PgChangeListener(tables = "${app.tables}", id = "${app.id}", concurrency = "${app.lanes}",
				group = "${app.group}")
		void placeholders(Change change) {
		}

		@PgChangeListener(concurrency = "many")
		void badConcurrency(Change change) {
		}

		@PgChangeListener(concurrency = "4")
		void concurrentTransaction(Transaction transaction) {
		}

		@PgChangeListener(concurrency = "2")
		void concurrentList(List<Change> changes) {
		}

		@PgChangeListener
		void withOperationAndAcknowledgment(Operation operation, Order order, Acknowledgment acknowledgment, Lsn lsn) {
			this.calls.add(List.of(order, operation, acknowledgment, lsn));
		}

		@PgChangeListener
		void transactionWithOperation(Transaction transaction, Operation operation) {
		}

		@PgChangeListener
		void twoPayloads(Change change, Row row) {
		}

		@PgChangeListener
		void stringPayload(String text) {
		}

		@PgChangeListener
		void listOfStrings(List<String> texts) {
		}

		@PgChangeListener
		void mapOfIntegers(Map<Integer, Object> map) {
		}

	}

}
