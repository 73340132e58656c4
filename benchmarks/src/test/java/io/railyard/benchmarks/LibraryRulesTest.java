package io.railyard.benchmarks;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.railyard.failover.FailoverHandler;
import io.railyard.failover.PendingRestarts;
import io.railyard.failover.ReleaseListener;
import io.railyard.failover.RestartBackoffPolicy;
import io.railyard.jobmaster.JobScheduler;
import io.railyard.regions.scheduling.RegionInputs;
import io.railyard.regions.scheduling.RegionSchedulingStrategy;
import java.nio.channels.FileChannel;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Rules over every Railyard module, checked on the compiled classes this module sees (all of them,
 * main and test): no memory-mapped file anywhere (reliability, "promises beyond Flink": a full disk
 * under a mapped write crashes the JVM with SIGBUS, and a mapped read of a truncated file does
 * too); Apache Flink only in {@code io.railyard.benchmarks.flink} and the plugin ({@code
 * io.railyard.flink}); the library's root packages depend only downwards, as its modules do, and
 * the shuffle layer on topology-model alone (ARCHITECTURE.md, "Modules"); the scheduler (strategy
 * and failover) is composed in one place, {@link JobScheduler}.
 */
class LibraryRulesTest {
    private static JavaClasses all;
    private static JavaClasses main;

    @BeforeAll
    static void importClasses() {
        all = new ClassFileImporter().importPackages("io.railyard");
        main =
                new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("io.railyard");
    }

    @Test
    void noClass_mapsAFile() {
        noClasses()
                .should()
                .callMethodWhere(
                        DescribedPredicate.describe(
                                "FileChannel.map",
                                (JavaCall<?> call) ->
                                        call.getName().equals("map")
                                                && call.getTargetOwner()
                                                        .isAssignableTo(FileChannel.class)))
                .because(
                        "a full disk under a mapped write, or a mapped read of a truncated file,"
                                + " kills the JVM with SIGBUS instead of failing one partition")
                .check(all);
    }

    @Test
    void flink_isImportedOnlyByTheBenchmarksFlinkPackage_andThePlugin() {
        noClasses()
                .that()
                .resideOutsideOfPackages("io.railyard.benchmarks.flink..", "io.railyard.flink..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.apache.flink..")
                .because(
                        "Flink is a measuring stick for benchmarks and parity tests, and the"
                                + " host of the plugin, never the library's dependency")
                .check(all);
    }

    @Test
    void libraryPackages_dependOnlyDownwards() {
        layeredArchitecture()
                .consideringOnlyDependenciesInAnyPackage("io.railyard..")
                .layer("benchmarks")
                .definedBy("io.railyard.benchmarks..")
                .layer("flink")
                .definedBy("io.railyard.flink..")
                .layer("local")
                .definedBy("io.railyard.local..")
                .layer("simulation")
                .definedBy("io.railyard.simulation..")
                .layer("jobmaster")
                .definedBy("io.railyard.jobmaster..")
                .layer("transport")
                .definedBy("io.railyard.transport..")
                .layer("worker")
                .definedBy("io.railyard.worker..")
                .layer("shuffle")
                .definedBy("io.railyard.shuffle..")
                .layer("failover")
                .definedBy("io.railyard.failover..")
                .layer("deployment")
                .definedBy("io.railyard.deployment..")
                .layer("regions")
                .definedBy("io.railyard.regions..")
                .layer("groups")
                .definedBy("io.railyard.groups..")
                .layer("topology")
                .definedBy("io.railyard.topology..")
                .whereLayer("benchmarks")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("flink")
                .mayOnlyBeAccessedByLayers("benchmarks")
                .whereLayer("local")
                .mayOnlyBeAccessedByLayers("benchmarks")
                .whereLayer("simulation")
                .mayOnlyBeAccessedByLayers("benchmarks")
                .whereLayer("jobmaster")
                .mayOnlyBeAccessedByLayers("local", "simulation", "benchmarks")
                .whereLayer("transport")
                .mayOnlyBeAccessedByLayers("flink", "local", "benchmarks")
                .whereLayer("worker")
                .mayOnlyBeAccessedByLayers("transport", "flink", "local", "benchmarks")
                .whereLayer("shuffle")
                .mayOnlyBeAccessedByLayers("worker", "transport", "flink", "local", "benchmarks")
                .whereLayer("failover")
                .mayOnlyBeAccessedByLayers("jobmaster", "local", "simulation", "benchmarks")
                .whereLayer("deployment")
                .mayOnlyBeAccessedByLayers(
                        "worker", "transport", "flink", "jobmaster", "local", "benchmarks")
                .whereLayer("regions")
                .mayOnlyBeAccessedByLayers(
                        "failover", "jobmaster", "local", "simulation", "benchmarks")
                .whereLayer("groups")
                .mayOnlyBeAccessedByLayers(
                        "regions",
                        "deployment",
                        "failover",
                        "jobmaster",
                        "local",
                        "simulation",
                        "benchmarks")
                .check(main);
    }

    @Test
    void onlyTheSchedulerCore_composesStrategyAndFailover() {
        noClasses()
                .that()
                .doNotHaveFullyQualifiedName(JobScheduler.class.getName())
                .should()
                .callConstructor(
                        FailoverHandler.class,
                        RegionInputs.class,
                        RegionSchedulingStrategy.class,
                        RestartBackoffPolicy.class,
                        ReleaseListener.class)
                .orShould()
                .callConstructor(PendingRestarts.class, int.class)
                .because(
                        "the scheduler is composed once (JobScheduler), wrapped by JobMaster and"
                                + " the simulator: a second composition drifts from the first")
                .check(main);
    }

    @Test
    void shuffleLayer_dependsOnTopologyModelOnly() {
        noClasses()
                .that()
                .resideInAPackage("io.railyard.shuffle..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.railyard.groups..",
                        "io.railyard.regions..",
                        "io.railyard.deployment..",
                        "io.railyard.failover..",
                        "io.railyard.jobmaster..",
                        "io.railyard.worker..",
                        "io.railyard.transport..",
                        "io.railyard.local..",
                        "io.railyard.simulation..",
                        "io.railyard.benchmarks..")
                .because(
                        "the shuffle layer is a leaf on topology-model: a worker process or a Flink"
                                + " TaskManager takes it without the scheduler")
                .check(all);
    }
}
