package io.postlog.spring;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.convert.ConversionService;
import org.springframework.util.StringValueResolver;

/**
 * Finds {@link PgChangeListener}, {@link PgMessageListener} and {@link PgSchemaListener}
 * methods on beans, and {@link PgChangeListenerEndpoint} beans, and, once every singleton
 * exists, registers them with the {@link PostlogListenerRegistry}, with the
 * {@link PgListenerErrorHandler} beans they name. Method resolution (placeholders,
 * parameter shape, invoker) is the {@link ListenerMethodResolver}'s; an unsupported
 * method signature fails the bean's creation with a message naming the method.
 */
public final class PostlogListenerAnnotationBeanPostProcessor
		implements BeanPostProcessor, SmartInitializingSingleton, BeanFactoryAware {

	private final ConversionService conversionService;

	private final List<ListenerEndpoint> endpoints = new ArrayList<>();

	private final Set<Class<?>> classesWithoutListeners = ConcurrentHashMap.newKeySet();

	private @Nullable BeanFactory beanFactory;

	private @Nullable ListenerMethodResolver resolver;

	/**
	 * Creates a post-processor that binds rows with Boot's shared conversion service.
	 */
	public PostlogListenerAnnotationBeanPostProcessor() {
		this(ApplicationConversionService.getSharedInstance());
	}

	/**
	 * Creates a post-processor.
	 * @param conversionService converts column values when binding rows to types
	 */
	public PostlogListenerAnnotationBeanPostProcessor(ConversionService conversionService) {
		this.conversionService = conversionService;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
		StringValueResolver placeholders = (beanFactory instanceof ConfigurableBeanFactory configurable)
				? configurable::resolveEmbeddedValue : null;
		this.resolver = new ListenerMethodResolver(placeholders, this.conversionService);
	}

	private ListenerMethodResolver resolver() {
		ListenerMethodResolver resolver = this.resolver;
		return (resolver != null) ? resolver : new ListenerMethodResolver(null, this.conversionService);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
		if (bean instanceof PgChangeListenerEndpoint endpoint) {
			ListenerEndpoint resolved = resolver().resolve(endpoint);
			synchronized (this.endpoints) {
				this.endpoints.add(resolved);
			}
			return bean;
		}
		Class<?> targetClass = AopUtils.getTargetClass(bean);
		if (this.classesWithoutListeners.contains(targetClass) || !AnnotationUtils.isCandidateClass(targetClass,
				List.of(PgChangeListener.class, PgMessageListener.class, PgSchemaListener.class))) {
			return bean;
		}
		Map<Method, PgChangeListener> changeMethods = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<PgChangeListener>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, PgChangeListener.class));
		Map<Method, PgMessageListener> messageMethods = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<PgMessageListener>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, PgMessageListener.class));
		Map<Method, PgSchemaListener> schemaMethods = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<PgSchemaListener>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, PgSchemaListener.class));
		if (changeMethods.isEmpty() && messageMethods.isEmpty() && schemaMethods.isEmpty()) {
			this.classesWithoutListeners.add(targetClass);
			return bean;
		}
		List<ListenerEndpoint> found = new ArrayList<>();
		ListenerMethodResolver resolver = resolver();
		changeMethods.forEach((method, annotation) -> found
			.add(resolver.resolve(bean, AopUtils.selectInvocableMethod(method, bean.getClass()), annotation)));
		messageMethods.forEach((method, annotation) -> found
			.add(resolver.resolve(bean, AopUtils.selectInvocableMethod(method, bean.getClass()), annotation)));
		schemaMethods.forEach((method, annotation) -> found
			.add(resolver.resolve(bean, AopUtils.selectInvocableMethod(method, bean.getClass()), annotation)));
		found.sort((a, b) -> a.id().compareTo(b.id()));
		synchronized (this.endpoints) {
			this.endpoints.addAll(found);
		}
		return bean;
	}

	@Override
	public void afterSingletonsInstantiated() {
		BeanFactory beanFactory = this.beanFactory;
		PostlogListenerRegistry registry = beanFactory.getBean(PostlogListenerRegistry.class);
		synchronized (this.endpoints) {
			List<ListenerEndpoint> resolved = new ArrayList<>();
			for (ListenerEndpoint endpoint : this.endpoints) {
				resolved.add(withToastResolver(beanFactory, withErrorHandler(beanFactory, endpoint)));
			}
			registry.register(resolved);
			this.endpoints.clear();
		}
	}

	private static ListenerEndpoint withToastResolver(BeanFactory beanFactory, ListenerEndpoint endpoint) {
		if (endpoint.toast().policy() != ToastPolicy.RESOLVER) {
			return endpoint;
		}
		String name = endpoint.toast().resolverName();
		try {
			return endpoint.withToastResolver((name != null) ? beanFactory.getBean(name, ToastResolver.class)
					: beanFactory.getBean(ToastResolver.class));
		}
		catch (NoSuchBeanDefinitionException ex) {
			throw new PostlogException("Listener '" + endpoint.id() + "' has toast = RESOLVER, but there is no "
					+ ((name != null) ? "ToastResolver bean named '" + name + "'" : "single ToastResolver bean")
					+ "; add one, or name it with toastResolver");
		}
	}

	private static ListenerEndpoint withErrorHandler(BeanFactory beanFactory, ListenerEndpoint endpoint) {
		String name = endpoint.errorHandlerName();
		if (name == null) {
			return endpoint;
		}
		try {
			return endpoint.withErrorHandler(beanFactory.getBean(name, PgListenerErrorHandler.class));
		}
		catch (NoSuchBeanDefinitionException ex) {
			throw new PostlogException("Listener '" + endpoint.id() + "' names errorHandler '" + name
					+ "', but there is no PgListenerErrorHandler bean of that name");
		}
	}

}
