package io.postlog.kafka;

/**
 * Customizes the {@link KafkaRelayBuilder} of the auto-configured relay before it is
 * built, for example to add listeners. Beans of this type are applied in order.
 */
@FunctionalInterface
public interface KafkaRelayCustomizer {

	/**
	 * Customizes the builder.
	 * @param builder the builder, already configured from {@code postlog.kafka.*}
	 */
	void customize(KafkaRelayBuilder builder);

}
