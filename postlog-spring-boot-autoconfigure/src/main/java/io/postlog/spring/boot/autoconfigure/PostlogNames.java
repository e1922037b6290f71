package io.postlog.spring.boot.autoconfigure;

import java.util.function.Consumer;

import io.postlog.admin.InvalidIdentifierException;
import io.postlog.admin.PgIdentifiers;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Checks a consumer group's slot and publication names before any SQL: a name set by a
 * property fails as an invalid value of that property (Boot's failure analysis names the
 * property, where it was set, and the rule); a name derived from the group's name fails
 * with {@link InvalidIdentifierException}. Slot names follow PostgreSQL's rule
 * ({@code [a-z0-9_]}, 1 to 63); publication names may be any identifier of 1 to 63 bytes
 * without NUL, since postlog always quotes them and a publication it does not manage may
 * have any name.
 */
final class PostlogNames {

	private PostlogNames() {
	}

	static void requireSlotName(PostlogProperties properties, String group) {
		@Nullable String property = group.isEmpty() ? "postlog.slot.name"
				: configured(properties, group, true) ? "postlog.groups." + group + ".slot.name" : null;
		require(property, properties.slotName(group), PgIdentifiers::requireSlotName);
	}

	static void requirePublicationName(PostlogProperties properties, String group) {
		@Nullable String property = group.isEmpty() ? "postlog.publication.name"
				: configured(properties, group, false) ? "postlog.groups." + group + ".publication.name" : null;
		require(property, properties.publicationName(group), (name) -> PgIdentifiers.requireName("publication", name));
	}

	private static boolean configured(PostlogProperties properties, String group, boolean slot) {
		PostlogProperties.Group settings = properties.getGroups().get(group);
		if (settings == null) {
			return false;
		}
		return ((slot) ? settings.getSlot().getName() : settings.getPublication().getName()) != null;
	}

	private static void require(@Nullable String property, String name, Consumer<String> check) {
		try {
			check.accept(name);
		}
		catch (InvalidIdentifierException ex) {
			if (property == null) {
				throw ex;
			}
			throw new InvalidConfigurationPropertyValueException(property, PgIdentifiers.printable(name),
					ex.getMessage());
		}
	}

}
