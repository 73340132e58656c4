package io.railyard.shuffle.partition;

import java.util.List;
import java.util.Locale;

/** The accounting a {@link HybridPartition} keeps, checked (tests call it after every step). */
final class HybridInvariants {
    private HybridInvariants() {}

    /**
     * Checks {@code regions} against the readers' {@code progress}: see {@link
     * HybridPartition#checkInvariants()}. Called under the partition's lock.
     */
    static void check(
            List<HybridRegion> regions,
            HybridProgress progress,
            HybridPartition.Mode mode,
            boolean lost,
            int residentPages) {
        int resident = 0;
        for (HybridRegion region : regions) {
            check(region.pins >= 0, "region %s has %s pins", region.index, region.pins);
            resident += region.residentPages();
            int need = 0;
            for (int s = 0; s < progress.size(); s++) {
                if (progress.needs(s, region)) {
                    need++;
                    if (!lost) {
                        int section = region.section(s);
                        int from = progress.neededFrom(s, region);
                        check(
                                from <= region.sectionLength(section),
                                "subpartition %s is at byte %s of a %s-byte section",
                                s,
                                from,
                                region.sectionLength(section));
                        check(
                                region.pages != null
                                        || from == region.sectionLength(section)
                                        || region.onDisk(section, from),
                                "byte %s of section %s of region %s is neither in memory nor on"
                                        + " disk",
                                from,
                                section,
                                region.index);
                    }
                }
            }
            check(
                    region.readersLeft == need,
                    "region %s counts %s readers, %s still need it",
                    region.index,
                    region.readersLeft,
                    need);
            check(
                    need > 0 || region.pages == null || region.pins > 0 || region.writing,
                    "region %s is read by everyone but holds %s pages",
                    region.index,
                    region.residentPages());
            check(
                    mode != HybridPartition.Mode.FULL
                            || region.writing
                            || region.fileOffset >= 0
                            || lost, // a failed write-through leaves it nowhere
                    "full-mode region %s is not on disk",
                    region.index);
            check(
                    mode == HybridPartition.Mode.FULL
                            || region.fileOffset < 0
                            || region.pageStart == null,
                    "read-once region %s was resident and yet written whole",
                    region.index);
        }
        check(resident == residentPages, "resident %s != %s", residentPages, resident);
    }

    private static void check(boolean condition, String message, Object... args) {
        if (!condition) {
            throw new IllegalStateException(String.format(Locale.ROOT, message, args));
        }
    }
}
