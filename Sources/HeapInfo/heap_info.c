#include "heap_info.h"

#if defined(__linux__)
#include <features.h>
#include <malloc.h>
#endif

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#define PAPERTRADE_HAS_MALLINFO2 1
#endif

size_t papertrade_heap_in_use(void) {
#ifdef PAPERTRADE_HAS_MALLINFO2
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
#else
    return 0;
#endif
}

size_t papertrade_heap_held(void) {
#ifdef PAPERTRADE_HAS_MALLINFO2
    struct mallinfo2 info = mallinfo2();
    return info.arena + info.hblkhd;
#else
    return 0;
#endif
}
