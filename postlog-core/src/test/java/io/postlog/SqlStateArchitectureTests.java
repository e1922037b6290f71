package io.postlog;

import java.sql.SQLException;

import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.properties.HasName;
import com.tngtech.archunit.core.domain.properties.HasOwner;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.postlog.admin.PgErrors;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * SQLState meaning is written once, in {@link PgErrors}: no other class reads
 * {@link SQLException#getSQLState()}. {@link PostlogException#sqlState()} is the one
 * other reader: it passes the cause's code through to callers and branches on nothing,
 * and it cannot call {@link PgErrors} without a cycle between {@code io.postlog} and
 * {@code io.postlog.admin}.
 */
class SqlStateArchitectureTests {

	private static final JavaClasses CORE = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("io.postlog");

	@Test
	void onlyPgErrorsReadsSqlStates() {
		noClasses().that()
			.doNotBelongToAnyOf(PgErrors.class, PostlogException.class)
			.should()
			.callMethodWhere(JavaCall.Predicates.target(HasName.Predicates.name("getSQLState"))
				.and(JavaCall.Predicates
					.target(HasOwner.Predicates.With.owner(JavaClass.Predicates.assignableTo(SQLException.class)))))
			.because("SQLState meaning lives in io.postlog.admin.PgErrors")
			.check(CORE);
	}

}
