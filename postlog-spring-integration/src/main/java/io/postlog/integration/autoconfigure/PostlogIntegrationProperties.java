package io.postlog.integration.autoconfigure;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import io.postlog.Operation;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the Spring Integration adapter
 * ({@code postlog.integration.*}). Not thread-safe; bound once at start-up.
 */
@ConfigurationProperties("postlog.integration")
public class PostlogIntegrationProperties {

	private final Inbound inbound = new Inbound();

	public Inbound getInbound() {
		return this.inbound;
	}

	/**
	 * The inbound channel adapter made from properties.
	 */
	public static class Inbound {

		/**
		 * Name of the channel the adapter sends each change to; when set, an adapter is
		 * created.
		 */
		private @Nullable String channel;

		/**
		 * Name of the channel a flow's failure is sent to as an ErrorMessage; the change
		 * is acknowledged when the error flow returns. Without it, a failure fails the
		 * listener and nothing is acknowledged past the change.
		 */
		private @Nullable String errorChannel;

		/**
		 * Listener id of the adapter, unique among the application's listeners.
		 */
		private String id = "postlog-inbound";

		/**
		 * Comma-separated list of tables whose changes are sent, as schema.table or table
		 * (public); empty for every published table.
		 */
		private List<String> tables = new ArrayList<>();

		/**
		 * Operations whose changes are sent; empty for all.
		 */
		private Set<Operation> operations = EnumSet.noneOf(Operation.class);

		/**
		 * Listener group of the adapter; empty for the default group.
		 */
		private String group = "";

		/**
		 * Number of lanes; above 1, changes of different keys are sent on several threads
		 * at once, each key's in order.
		 */
		private int concurrency = 1;

		public @Nullable String getChannel() {
			return this.channel;
		}

		public void setChannel(@Nullable String channel) {
			this.channel = channel;
		}

		public @Nullable String getErrorChannel() {
			return this.errorChannel;
		}

		public void setErrorChannel(@Nullable String errorChannel) {
			this.errorChannel = errorChannel;
		}

		public String getId() {
			return this.id;
		}

		public void setId(String id) {
			this.id = id;
		}

		public List<String> getTables() {
			return this.tables;
		}

		public void setTables(List<String> tables) {
			this.tables = tables;
		}

		public Set<Operation> getOperations() {
			return this.operations;
		}

		public void setOperations(Set<Operation> operations) {
			this.operations = operations;
		}

		public String getGroup() {
			return this.group;
		}

		public void setGroup(String group) {
			this.group = group;
		}

		public int getConcurrency() {
			return this.concurrency;
		}

		public void setConcurrency(int concurrency) {
			this.concurrency = concurrency;
		}

	}

}
