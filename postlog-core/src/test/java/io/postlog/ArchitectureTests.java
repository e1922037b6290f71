package io.postlog;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

class ArchitectureTests {

	private static final JavaClasses CORE = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("io.postlog");

	@Test
	void coreDoesNotDependOnSpring() {
		noClasses().should().dependOnClassesThat().resideInAPackage("org.springframework..").check(CORE);
	}

	@Test
	void corePackagesHaveNoCycles() {
		slices().matching("io.postlog.(**)").should().beFreeOfCycles().allowEmptyShould(true).check(CORE);
	}

}
