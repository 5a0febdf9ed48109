#include "heap_info.h"

#if defined(__linux__)
#include <features.h>
#include <malloc.h>
#endif

struct papertrade_heap_reading papertrade_heap(void) {
    struct papertrade_heap_reading reading = {0, 0};
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    reading.in_use = info.uordblks + info.hblkhd;
    reading.held = info.arena + info.hblkhd;
#endif
    return reading;
}
