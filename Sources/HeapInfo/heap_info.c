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

int papertrade_heap_fix_thresholds(size_t mmap_threshold, size_t trim_threshold) {
#if defined(__GLIBC__)
    if (mmap_threshold > (size_t)0x7fffffff || trim_threshold > (size_t)0x7fffffff) return 0;
    int mmap_set = mallopt(M_MMAP_THRESHOLD, (int)mmap_threshold);
    int trim_set = mallopt(M_TRIM_THRESHOLD, (int)trim_threshold);
    return mmap_set == 1 && trim_set == 1;
#else
    (void)mmap_threshold;
    (void)trim_threshold;
    return 0;
#endif
}
