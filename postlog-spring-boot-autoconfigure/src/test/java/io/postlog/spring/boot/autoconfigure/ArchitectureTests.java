package io.postlog.spring.boot.autoconfigure;

import java.sql.SQLException;

import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.properties.HasName;
import com.tngtech.archunit.core.domain.properties.HasOwner;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalyzer;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.members;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

class ArchitectureTests {

	private final JavaClasses classes = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("io.postlog.spring");

	@Test
	void autoConfigurationsArePublicFinal() {
		classes().that()
			.areAnnotatedWith(AutoConfiguration.class)
			.should()
			.bePublic()
			.andShould()
			.haveModifier(JavaModifier.FINAL)
			.check(this.classes);
	}

	@Test
	void autoConfigurationsHaveNoPublicMembers() {
		members().that()
			.areDeclaredInClassesThat()
			.areAnnotatedWith(AutoConfiguration.class)
			.should()
			.notBePublic()
			.check(this.classes);
	}

	@Test
	void failureAnalyzersArePackagePrivate() {
		classes().that().implement(FailureAnalyzer.class).should().notBePublic().check(this.classes);
	}

	@Test
	void onlyPgErrorsReadsSqlStates() {
		noClasses().should()
			.callMethodWhere(JavaCall.Predicates.target(HasName.Predicates.name("getSQLState"))
				.and(JavaCall.Predicates
					.target(HasOwner.Predicates.With.owner(JavaClass.Predicates.assignableTo(SQLException.class)))))
			.because("SQLState meaning lives in io.postlog.admin.PgErrors")
			.check(this.classes);
	}

}
