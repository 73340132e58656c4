package io.railyard.benchmarks;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package rules of the benchmarks module, checked on its compiled classes (main and test):
 * {@code .procedures} and {@code .inspect} know nothing of the command line, JMH or Flink; the
 * command line is the top. See ARCHITECTURE.md, "The benchmarks module".
 */
class PackageRulesTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().importPackages("io.railyard.benchmarks");
    }

    @Test
    void packages_dependOnlyDownwards() {
        layeredArchitecture()
                .consideringOnlyDependenciesInAnyPackage("io.railyard.benchmarks..")
                .layer("cli")
                .definedBy("io.railyard.benchmarks.cli..")
                .layer("flink")
                .definedBy("io.railyard.benchmarks.flink..")
                .layer("jmh")
                .definedBy("io.railyard.benchmarks.jmh..")
                .layer("inspect")
                .definedBy("io.railyard.benchmarks.inspect..")
                .layer("procedures")
                .definedBy("io.railyard.benchmarks.procedures..")
                .whereLayer("cli")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("flink")
                .mayOnlyBeAccessedByLayers("cli")
                .whereLayer("jmh")
                .mayOnlyBeAccessedByLayers("flink")
                .whereLayer("inspect")
                .mayOnlyBeAccessedByLayers("cli", "flink") // Flink's plans checked against Flink
                .whereLayer("procedures")
                .mayOnlyBeAccessedByLayers("cli", "flink", "jmh")
                .check(classes);
    }

    @Test
    void procedures_knowNothingOfJmhOrTheCommandLineLibraries() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "io.railyard.benchmarks.procedures..", "io.railyard.benchmarks.inspect..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.openjdk.jmh..", "picocli..", "me.tongfei..", "org.knowm..")
                .check(classes);
    }
}
