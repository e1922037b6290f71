package io.postlog.spring;

import java.math.BigDecimal;

import io.postlog.Acknowledgment;
import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.SchemaChange;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ahead-of-time hints: postlog's own, registered through {@code aot.factories}, and
 * those of an application's listener methods and the records they bind, as Spring's AOT
 * processing finds them on a bean class.
 */
class PostlogRuntimeHintsTests {

	@Test
	void postlogsOwnHintsAreRegisteredThroughAotFactories() {
		assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class))
			.anyMatch(PostlogRuntimeHints.class::isInstance);
		RuntimeHints hints = new RuntimeHints();
		new PostlogRuntimeHints().registerHints(hints, getClass().getClassLoader());
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(PgChangeListenerEndpoint.class, "onChange"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.proxies().forInterfaces(PgChangeListener.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.proxies().forInterfaces(PgMessageListener.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.proxies().forInterfaces(PgSchemaListener.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.resource().forResource("META-INF/spring-configuration-metadata.json"))
			.accepts(hints);
	}

	@Test
	void listenerMethodsAreInvocableAndTheRecordsTheyBindAreReflective() {
		RuntimeHints hints = new RuntimeHints();
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, Listeners.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Listeners.class, "onOrder")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Listeners.class, "onChange")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Listeners.class, "onMessage")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(Order.class)
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Order.class, "customerName")).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Change.class)).rejects(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Lsn.class)).rejects(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Acknowledgment.class)).rejects(hints);
	}

	@Test
	void onlyRowBoundTypesGetBindingHints() {
		assertThat(PgListenerReflectiveProcessor.boundFromRows(Order.class)).isTrue();
		assertThat(PgListenerReflectiveProcessor.boundFromRows(Change.class)).isFalse();
		assertThat(PgListenerReflectiveProcessor.boundFromRows(Operation.class)).isFalse();
		assertThat(PgListenerReflectiveProcessor.boundFromRows(java.util.Map.class)).isFalse();
		assertThat(PgListenerReflectiveProcessor.boundFromRows(String.class)).isFalse();
	}

	record Order(int orderId, String customerName, BigDecimal total) {
	}

	static class Listeners {

		@PgChangeListener(tables = "orders", operations = Operation.INSERT)
		void onOrder(Order order, Lsn lsn) {
		}

		@PgChangeListener(tables = "orders")
		void onChange(Change change, Acknowledgment acknowledgment) {
		}

		@PgMessageListener(prefix = "audit")
		void onMessage(LogicalMessage message) {
		}

		@PgSchemaListener(tables = "orders")
		void onSchema(SchemaChange change) {
		}

	}

}
