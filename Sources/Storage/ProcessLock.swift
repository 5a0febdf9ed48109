import BrokerageModel
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One serving process per SQLite database: an exclusive `flock` on `<database>.lock`, held while the process
/// serves and released by the kernel if it dies (so a crash never leaves a stale lock behind). The file holds
/// the holder's pid, for the message a second process gets. Admin commands do not take it: they may run beside a
/// server, as before.
final class ProcessLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    static func acquire(_ path: String) throws -> ProcessLock {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw StorageError.unavailable("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = read(fd, &buffer, buffer.count)
            close(fd)
            let holder =
                count > 0
                ? String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                : "?"
            throw StorageError.unavailable(
                "another papertrade process (pid \(holder)) is serving this SQLite database; SQLite serves one process — stop it first, or run several servers on PostgreSQL (--database-url)"
            )
        }
        let pid = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = pid.withCString { pwrite(fd, $0, strlen($0), 0) }
        return ProcessLock(descriptor: fd)
    }

    /// Gives the lock up (closing the descriptor releases the flock).
    func release() {
        _ = ftruncate(descriptor, 0)
        close(descriptor)
    }
}
