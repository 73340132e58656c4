package io.railyard.shuffle.partition;

import java.util.List;
import java.util.Locale;

/** The accounting a {@link HybridPartition} keeps, checked (tests call it after every step). */
final class HybridInvariants {
    private HybridInvariants() {}

    /**
     * Checks {@code regions}, read by {@code numSubpartitions} subpartitions: see {@link
     * HybridPartition#checkInvariants()}. Called under the partition's lock.
     */
    static void check(
            List<HybridRegion> regions,
            int numSubpartitions,
            boolean fullMode,
            boolean lost,
            int residentPages) {
        int resident = 0;
        for (HybridRegion region : regions) {
            resident += region.residentPages();
            int need = 0;
            for (int s = 0; s < numSubpartitions; s++) {
                if (region.needs(s)) {
                    need++;
                    if (!lost) {
                        checkNeededByte(region, s, region.neededFrom(s));
                    }
                }
            }
            region.checkInvariants(need, fullMode, lost);
        }
        check(resident == residentPages, "resident %s != %s", residentPages, resident);
    }

    /** Subpartition {@code s} still needs byte {@code from} of its section: it is somewhere. */
    private static void checkNeededByte(HybridRegion region, int s, int from) {
        int section = region.section(s);
        int length = region.sectionLength(section);
        check(
                from <= length,
                "subpartition %s is at byte %s of a %s-byte section",
                s,
                from,
                length);
        check(
                region.isResident() || from == length || region.onDisk(section, from),
                "byte %s of section %s of region %s is neither in memory nor on disk",
                from,
                section,
                region.index());
    }

    private static void check(boolean condition, String message, Object... args) {
        if (!condition) {
            throw new IllegalStateException(String.format(Locale.ROOT, message, args));
        }
    }
}
