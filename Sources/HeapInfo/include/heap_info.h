// The process's heap as glibc's allocator sees it (mallinfo2, mallopt; malloc.h is not in Swift's Glibc module).
// Read by /metrics (the server's memory gauges) and by MemoryBench; the server fixes the allocator's thresholds at
// start (ProcessMemory.fixAllocatorThresholds).
#pragma once
#include <stddef.h>

/// One reading of the allocator (both 0 where glibc has no mallinfo2).
struct papertrade_heap_reading {
    /// Bytes allocated and not yet freed: chunks in use in every arena plus mmapped blocks.
    size_t in_use;
    /// What the allocator holds from the system: every arena's bytes plus mmapped blocks (in use or free).
    size_t held;
};

/// Reads both figures with one walk of the arenas.
struct papertrade_heap_reading papertrade_heap(void);

/// Fixes glibc's mmap and trim thresholds (mallopt M_MMAP_THRESHOLD, M_TRIM_THRESHOLD), which otherwise rise with
/// the largest block freed so far: blocks at or above `mmap_threshold` bytes go straight to the system and back,
/// and an arena's top is returned once `trim_threshold` bytes of it are free. Returns 1 when both were set, 0 where
/// there is no glibc or a value is above what mallopt takes.
int papertrade_heap_fix_thresholds(size_t mmap_threshold, size_t trim_threshold);
