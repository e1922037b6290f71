package io.postlog.spring;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.util.ClassUtils;

/**
 * postlog's own ahead-of-time hints, registered through
 * {@code META-INF/spring/aot.factories}: {@link PgChangeListenerEndpoint#onChange}
 * (invoked reflectively), the listener annotations as JDK proxies (attributes given in
 * code are synthesized into them), and the configuration metadata that the
 * unknown-property check reads. The hints of each application's listener methods and of
 * the records they bind come from {@link PgListenerReflectiveProcessor}.
 */
public final class PostlogRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.reflection()
			.registerMethod(ClassUtils.getMethod(PgChangeListenerEndpoint.class, "onChange", io.postlog.Change.class),
					ExecutableMode.INVOKE);
		hints.proxies().registerJdkProxy(PgChangeListener.class);
		hints.proxies().registerJdkProxy(PgMessageListener.class);
		hints.proxies().registerJdkProxy(PgSchemaListener.class);
		hints.resources().registerPattern("META-INF/spring-configuration-metadata.json");
		hints.resources().registerPattern("META-INF/additional-spring-configuration-metadata.json");
	}

}
