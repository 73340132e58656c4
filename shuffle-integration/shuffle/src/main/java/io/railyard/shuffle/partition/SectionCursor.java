package io.railyard.shuffle.partition;

/**
 * What a blocking partition points at one section of a subpartition: a gate's channel on the IO
 * thread, or a {@link SectionReader} of a data server. Confined to its reader's thread.
 */
interface SectionCursor {
    /** The subpartition whose sections it walks. */
    int subpartition();

    /** Its current section: {@code length} bytes of frames from {@code offset} of the data file. */
    void setSection(long offset, long length);
}
