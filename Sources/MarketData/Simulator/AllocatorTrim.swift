#if canImport(Glibc)
    import Glibc
#endif

/// Hands the heap's free pages back to the system (glibc's `malloc_trim(0)`; nothing elsewhere). glibc keeps what a
/// program frees for its next allocations, so without this a process's resident memory never falls after a peak.
/// `malloc_trim` is not in the Glibc module's headers, hence the look-up by name.
enum AllocatorTrim {
    #if canImport(Glibc)
        private typealias Trim = @convention(c) (Int) -> Int32
        private static let trim: Trim? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim").map {
            unsafeBitCast($0, to: Trim.self)
        }
    #endif

    static func releaseFreeMemory() {
        #if canImport(Glibc)
            _ = trim?(0)
        #endif
    }
}
