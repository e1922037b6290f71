package io.postlog.spring.boot.autoconfigure;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepository;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.util.ClassUtils;

/**
 * The {@code postlog.*} property names, read from the configuration metadata of every
 * postlog module on the class path ({@code META-INF/spring-configuration-metadata.json}
 * and {@code additional-spring-configuration-metadata.json}). A map of settings groups
 * ({@code postlog.groups.<name>.*}) is expanded from its value class's JavaBean
 * properties, with {@code *} for the key; a map or list of plain values accepts any name
 * below it. Names compare in Boot's uniform form (lower case, letters and digits only),
 * so kebab, camel and underscore forms and environment variables mapped by Boot match
 * alike. Immutable and thread-safe.
 */
final class KnownPostlogProperties {

	private static final Logger logger = LoggerFactory.getLogger(KnownPostlogProperties.class);

	private static final String ANY = "*";

	private static final String ANY_BELOW = "**";

	private static final List<String> METADATA = List.of("META-INF/spring-configuration-metadata.json",
			"META-INF/additional-spring-configuration-metadata.json");

	private final List<Pattern> patterns;

	private KnownPostlogProperties(List<Pattern> patterns) {
		this.patterns = List.copyOf(patterns);
	}

	/**
	 * Reads the metadata the class loader sees.
	 * @param classLoader the class loader
	 * @return the names, empty when no postlog metadata is found
	 */
	static KnownPostlogProperties load(@Nullable ClassLoader classLoader) {
		ClassLoader loader = (classLoader != null) ? classLoader : KnownPostlogProperties.class.getClassLoader();
		Set<Pattern> patterns = new LinkedHashSet<>();
		for (String resource : METADATA) {
			try {
				Enumeration<URL> urls = loader.getResources(resource);
				while (urls.hasMoreElements()) {
					read(urls.nextElement(), loader, patterns);
				}
			}
			catch (IOException | RuntimeException ex) {
				logger.debug("Could not read {}; postlog's property names may be incomplete", resource, ex);
			}
		}
		return new KnownPostlogProperties(new ArrayList<>(patterns));
	}

	boolean isEmpty() {
		return this.patterns.isEmpty();
	}

	/**
	 * Whether the name is a postlog property, or lies below a map or list property.
	 */
	boolean isKnown(ConfigurationPropertyName name) {
		List<String> elements = uniform(name);
		return this.patterns.stream().anyMatch((pattern) -> pattern.matches(elements));
	}

	/**
	 * Returns the known name nearest to an unknown one, as it would be written, if one is
	 * near enough to be a misspelling of it.
	 */
	@Nullable String nearest(ConfigurationPropertyName name) {
		List<String> elements = uniform(name);
		String written = String.join(".", elements);
		String best = null;
		int bestDistance = Integer.MAX_VALUE;
		for (Pattern pattern : this.patterns) {
			Pattern.Candidate candidate = pattern.candidate(elements);
			if (candidate == null) {
				continue;
			}
			int distance = distance(written, candidate.uniform());
			if (distance < bestDistance) {
				best = candidate.display();
				bestDistance = distance;
			}
		}
		return (best != null && bestDistance <= Math.max(3, written.length() / 5)) ? best : null;
	}

	private static List<String> uniform(ConfigurationPropertyName name) {
		List<String> elements = new ArrayList<>(name.getNumberOfElements());
		for (int i = 0; i < name.getNumberOfElements(); i++) {
			elements.add(name.getElement(i, Form.UNIFORM));
		}
		return elements;
	}

	private static void read(URL url, ClassLoader loader, Set<Pattern> patterns) throws IOException {
		ConfigurationMetadataRepository metadata;
		try (InputStream in = url.openStream()) {
			metadata = ConfigurationMetadataRepositoryJsonBuilder.create(StandardCharsets.UTF_8)
				.withJsonResource(in)
				.build();
		}
		for (ConfigurationMetadataProperty property : metadata.getAllProperties().values()) {
			String name = property.getId();
			if (name.startsWith("postlog.")) {
				add(Arrays.asList(name.split("\\.")), property.getType(), loader, patterns);
			}
		}
	}

	private static void add(List<String> names, @Nullable String type, ClassLoader loader, Set<Pattern> patterns) {
		if (type == null) {
			patterns.add(new Pattern(names));
			return;
		}
		if (type.startsWith("java.util.Map<")) {
			Class<?> values = mapValueClass(type, loader);
			if (values != null && isSettingsClass(values)) {
				addBean(append(names, ANY), values, patterns, 0);
			}
			else {
				patterns.add(new Pattern(append(names, ANY_BELOW)));
			}
		}
		else if (type.endsWith("[]") || type.startsWith("java.util.List<") || type.startsWith("java.util.Set<")
				|| type.startsWith("java.util.Collection<")) {
			patterns.add(new Pattern(append(names, ANY_BELOW)));
		}
		else {
			patterns.add(new Pattern(names));
		}
	}

	private static void addBean(List<String> prefix, Class<?> type, Set<Pattern> patterns, int depth) {
		for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
			if (property.getReadMethod() == null || "class".equals(property.getName())) {
				continue;
			}
			List<String> names = append(prefix, dashed(property.getName()));
			Class<?> propertyType = property.getPropertyType();
			if (Map.class.isAssignableFrom(propertyType) || Collection.class.isAssignableFrom(propertyType)
					|| propertyType.isArray()) {
				patterns.add(new Pattern(append(names, ANY_BELOW)));
			}
			else if (depth < 8 && isSettingsClass(propertyType)) {
				addBean(names, propertyType, patterns, depth + 1);
			}
			else {
				patterns.add(new Pattern(names));
			}
		}
	}

	private static boolean isSettingsClass(Class<?> type) {
		return !BeanUtils.isSimpleProperty(type) && !type.isInterface() && !type.getName().startsWith("java.")
				&& ClassUtils.hasConstructor(type);
	}

	private static @Nullable Class<?> mapValueClass(String type, ClassLoader loader) {
		String arguments = type.substring("java.util.Map<".length(), type.length() - 1);
		int comma = arguments.indexOf(',');
		if (comma < 0 || arguments.indexOf('<') >= 0) {
			return null;
		}
		try {
			return ClassUtils.forName(arguments.substring(comma + 1).trim(), loader);
		}
		catch (ClassNotFoundException | LinkageError ex) {
			logger.debug("No class {} for the values of a postlog map property", arguments, ex);
			return null;
		}
	}

	private static String dashed(String camel) {
		StringBuilder dashed = new StringBuilder();
		for (char c : camel.toCharArray()) {
			if (Character.isUpperCase(c)) {
				dashed.append('-').append(Character.toLowerCase(c));
			}
			else {
				dashed.append(c);
			}
		}
		return dashed.toString();
	}

	private static List<String> append(List<String> names, String name) {
		List<String> appended = new ArrayList<>(names);
		appended.add(name);
		return appended;
	}

	private static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

	/**
	 * A property name as written in the metadata ({@code max-queued-backfills}), with
	 * {@code *} for a map key and {@code **} for anything below a map or list.
	 */
	private record Pattern(List<String> names) {

		Pattern {
			names = List.copyOf(names);
		}

		boolean matches(List<String> elements) {
			for (int i = 0; i < this.names.size(); i++) {
				String name = this.names.get(i);
				if (ANY_BELOW.equals(name)) {
					return true;
				}
				if (i >= elements.size() || !(ANY.equals(name) || uniform(name).equals(elements.get(i)))) {
					return false;
				}
			}
			return elements.size() == this.names.size();
		}

		/**
		 * This pattern written for an unknown name: its keys put in for {@code *};
		 * {@code null} for a pattern that accepts anything below, which an unknown name
		 * cannot be near.
		 */
		@Nullable Candidate candidate(List<String> elements) {
			List<String> display = new ArrayList<>();
			List<String> uniform = new ArrayList<>();
			for (int i = 0; i < this.names.size(); i++) {
				String name = this.names.get(i);
				if (ANY_BELOW.equals(name)) {
					return null;
				}
				if (ANY.equals(name)) {
					if (i >= elements.size()) {
						return null;
					}
					display.add(elements.get(i));
					uniform.add(elements.get(i));
				}
				else {
					display.add(name);
					uniform.add(uniform(name));
				}
			}
			return new Candidate(String.join(".", display), String.join(".", uniform));
		}

		private static String uniform(String name) {
			StringBuilder uniform = new StringBuilder(name.length());
			for (char c : name.toLowerCase(Locale.ROOT).toCharArray()) {
				if (Character.isLetterOrDigit(c)) {
					uniform.append(c);
				}
			}
			return uniform.toString();
		}

		record Candidate(String display, String uniform) {
		}

	}

}
