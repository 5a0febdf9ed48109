// The process's heap as glibc's allocator sees it (mallinfo2; malloc.h is not in Swift's Glibc module). Read by
// /metrics (the server's memory gauges) and by MemoryBench.
#pragma once
#include <stddef.h>

/// Bytes allocated and not yet freed: chunks in use in every arena plus mmapped blocks (0 where glibc has no
/// mallinfo2).
size_t papertrade_heap_in_use(void);

/// What the allocator holds from the system: every arena's bytes plus mmapped blocks (in use or free; 0 where glibc
/// has no mallinfo2).
size_t papertrade_heap_held(void);
