package io.railyard.shuffle.buffer;

/**
 * One owner's pages at a moment.
 *
 * @param name the owner's name
 * @param guaranteedPages pages promised to it
 * @param pagesInUse pages it holds (more than the guarantee when it borrows)
 */
public record OwnerStats(String name, int guaranteedPages, int pagesInUse) {}
