package io.postlog.spring.boot.autoconfigure;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalyzer;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.members;

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

}
