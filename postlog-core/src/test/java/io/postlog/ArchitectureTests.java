package io.postlog;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
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

	/**
	 * Every package its own slice, the root {@code io.postlog} and every subpackage
	 * ({@code io.postlog.consumer.spill} apart from {@code io.postlog.consumer}): no
	 * package reaches itself through others.
	 */
	@Test
	void corePackagesHaveNoCycles() {
		slices().assignedFrom(new EachPackage()).should().beFreeOfCycles().check(CORE);
	}

	@Test
	void theRootPackageDependsOnNoOtherPostlogPackage() {
		noClasses().that()
			.resideInAPackage("io.postlog")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("io.postlog.(*)..")
			.check(CORE);
	}

	@Test
	void theConsumersLowerRoomsDoNotDependOnTheConsumer() {
		noClasses().that()
			.resideInAnyPackage("io.postlog.consumer.spill..", "io.postlog.consumer.checkpoint..",
					"io.postlog.consumer.delivery..", "io.postlog.consumer.backfill..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("io.postlog.consumer")
			.check(CORE);
	}

	/** Puts each class of postlog in the slice of its own package. */
	private static final class EachPackage implements SliceAssignment {

		@Override
		public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
			String name = javaClass.getPackageName();
			return (name.equals("io.postlog") || name.startsWith("io.postlog.")) ? SliceIdentifier.of(name)
					: SliceIdentifier.ignore();
		}

		@Override
		public String getDescription() {
			return "each package of io.postlog";
		}

	}

}
