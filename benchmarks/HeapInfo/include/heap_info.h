// The heap figures the memory benchmark reads (glibc's mallinfo2; malloc.h is not in Swift's Glibc module).
#pragma once
#include <stddef.h>

/// Bytes allocated and not yet freed: chunks in use in every arena plus mmapped blocks (0 where glibc has no
/// mallinfo2).
size_t papertrade_heap_in_use(void);
