// The process's heap as glibc's allocator sees it (mallinfo2; malloc.h is not in Swift's Glibc module). Read by
// /metrics (the server's memory gauges) and by MemoryBench.
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
