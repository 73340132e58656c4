package io.railyard.shuffle;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.Test;

/**
 * The shuffle layer's packages ({@code io.railyard.shuffle} and each package below it) depend on
 * each other without cycles, so each package can be read, tested and changed on its own (the map is
 * in ARCHITECTURE.md, "Shuffle layer"). The rule is checked on a seeded cycle too, so that it
 * cannot pass by matching nothing.
 */
class PackageCyclesTest {
    private static final String SHUFFLE = "io.railyard.shuffle";

    /** Every class of the shuffle layer in the slice of its own package; the rest ignored. */
    private static final SliceAssignment BY_PACKAGE =
            new SliceAssignment() {
                @Override
                public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
                    String name = javaClass.getPackageName();
                    return name.equals(SHUFFLE) || name.startsWith(SHUFFLE + ".")
                            ? SliceIdentifier.of(name)
                            : SliceIdentifier.ignore();
                }

                @Override
                public String getDescription() {
                    return "the packages of the shuffle layer";
                }
            };

    private static ArchRule packagesFreeOfCycles() {
        return slices().assignedFrom(BY_PACKAGE).should().beFreeOfCycles();
    }

    @Test
    void shufflePackages_dependOnEachOtherWithoutCycles() {
        JavaClasses main =
                new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages(SHUFFLE);
        packagesFreeOfCycles().check(main);
    }

    @Test
    void aSeededCycle_failsTheRule() {
        JavaClasses seeded = new ClassFileImporter().importPackages(SHUFFLE + ".archfixture");
        assertThatThrownBy(() -> packagesFreeOfCycles().check(seeded))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("archfixture.a")
                .hasMessageContaining("archfixture.b");
    }
}
