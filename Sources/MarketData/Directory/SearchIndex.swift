import TradingCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The directory's search structures: symbols sorted for prefix lookups by binary search, and every name in
/// one newline-separated buffer so that name-prefix, word-prefix and substring matches are each one `memmem`
/// scan. Matching runs in phases (ticker, name start, word start, substring) and stops as soon as a phase
/// cannot improve the list: short queries never scan for substrings.
struct SearchIndex: Sendable {
    private let symbols: [[UInt8]]
    /// Entry indexes sorted by folded symbol.
    private let sortedSymbols: [Int32]
    /// "\n" + name0 + "\n" + name1 + … + "\n"; `nameStarts[i]` is where name i begins.
    private let nameBuffer: [UInt8]
    private let nameStarts: [Int32]
    private let symbolBuffer: [UInt8]
    private let symbolStarts: [Int32]
    private let ranks: [Int32]
    private let markets: [Market]
    /// Every word start in every name (the name's own start included), sorted by the text that follows it:
    /// name-prefix and word-prefix matches are a binary search away.
    private let wordStarts: [Int32]

    init(symbols: [[UInt8]], names: [[UInt8]], ranks: [Int32], markets: [Market]) {
        self.symbols = symbols
        self.ranks = ranks
        self.markets = markets
        sortedSymbols = symbols.indices.sorted { symbols[$0].lexicographicallyPrecedes(symbols[$1]) }.map(Int32.init)
        (nameBuffer, nameStarts) = Self.joined(names)
        (symbolBuffer, symbolStarts) = Self.joined(symbols)
        var starts: [Int32] = []
        starts.reserveCapacity(names.count * 4)
        let buffer = nameBuffer
        for i in 1..<buffer.count where buffer[i] != 10 && (buffer[i - 1] == 10 || buffer[i - 1] == 32) {
            starts.append(Int32(i))
        }
        // (Compared through the buffer's pointer: with the array's checked subscript this sort was a sixth of the
        // directory's load.)
        buffer.withUnsafeBufferPointer { text in
            starts.sort { a, b in
                var i = Int(a), j = Int(b)
                while true {
                    let x = text[i], y = text[j]
                    if x != y || x == 10 { return x < y }
                    i += 1
                    j += 1
                }
            }
        }
        wordStarts = starts
    }

    /// Offsets in `wordStarts` order whose text begins with `q`.
    private func wordsStarting(with q: [UInt8]) -> ArraySlice<Int32> {
        func precedes(_ offset: Int32) -> Bool { // text at offset < q (as a prefix comparison)
            var i = Int(offset)
            for byte in q {
                let x = nameBuffer[i]
                if x != byte { return x < byte || x == 10 }
                i += 1
            }
            return false
        }
        var lo = 0, hi = wordStarts.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if precedes(wordStarts[mid]) { lo = mid + 1 } else { hi = mid }
        }
        var end = lo
        while end < wordStarts.count, nameBuffer[Int(wordStarts[end])...].starts(with: q) { end += 1 }
        return wordStarts[lo..<end]
    }

    static func joined(_ parts: [[UInt8]]) -> ([UInt8], [Int32]) {
        var buffer: [UInt8] = [10]
        var starts: [Int32] = []
        buffer.reserveCapacity(parts.reduce(1) { $0 + $1.count + 1 })
        for part in parts {
            starts.append(Int32(buffer.count))
            buffer.append(contentsOf: part.map { $0 == 10 ? 32 : $0 })
            buffer.append(10)
        }
        return (buffer, starts)
    }

    /// A candidate: (score, completion length, listing rank, symbol length, index); smaller is better.
    typealias Key = (Int, Int, Int32, Int, Int)

    func search(_ q: [UInt8], market: Market?, limit: Int) -> [Int] {
        // Best key per entry, found through `slot` (one allocation per query, no hashing).
        var slot = [Int32](repeating: -1, count: symbols.count)
        var keys: [Key] = []
        var betterThan = [Int](repeating: 0, count: 6) // candidates per score, to know when a phase is moot
        func consider(_ i: Int, _ score: Int, _ rest: Int) {
            if let market, markets[i] != market { return }
            let key = (score, rest, ranks[i], symbols[i].count, i)
            if slot[i] >= 0 {
                let old = keys[Int(slot[i])]
                guard key < old else { return }
                keys[Int(slot[i])] = key
                if score < old.0 {
                    betterThan[score] += 1
                    betterThan[old.0] -= 1
                }
            } else {
                slot[i] = Int32(keys.count)
                keys.append(key)
                betterThan[score] += 1
            }
        }
        func enough(below score: Int) -> Bool {
            betterThan[0..<score].reduce(0, +) >= limit
        }
        // Phase 1: ticker exact (0) and prefix (1).
        var lo = 0, hi = sortedSymbols.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if symbols[Int(sortedSymbols[mid])].lexicographicallyPrecedes(q) { lo = mid + 1 } else { hi = mid }
        }
        var k = lo
        while k < sortedSymbols.count {
            let i = Int(sortedSymbols[k])
            guard symbols[i].starts(with: q) else { break }
            consider(i, symbols[i].count == q.count ? 0 : 1, symbols[i].count - q.count)
            k += 1
        }
        // Phase 2 and 3: a name starting with q scores 2, a later word starting with q scores 3.
        if !enough(below: 2) {
            for at in wordsStarting(with: q) {
                let offset = Int(at)
                let i = entry(containing: offset, starts: nameStarts)
                consider(i, nameBuffer[offset - 1] == 10 ? 2 : 3, wordLength(from: offset + q.count))
            }
        }
        // Phase 4 and 5: ticker substring (4), name substring (5), only for queries of two or more bytes.
        if q.count >= 2 && !enough(below: 4) {
            occurrences(of: q, in: symbolBuffer) { at in
                consider(entry(containing: at, starts: symbolStarts), 4, 0)
            }
            if !enough(below: 5) {
                occurrences(of: q, in: nameBuffer) { at in
                    consider(entry(containing: at, starts: nameStarts), 5, wordLength(from: at + q.count))
                }
            }
        }
        // Top `limit` by insertion into a short sorted list.
        var top: [Key] = []
        top.reserveCapacity(limit + 1)
        for key in keys {
            if top.count == limit, let last = top.last, !(key < last) { continue }
            top.insert(key, at: top.firstIndex { key < $0 } ?? top.count)
            if top.count > limit { top.removeLast() }
        }
        return top.map(\.4)
    }

    /// Calls `body` with the offset of every occurrence of `needle` in `haystack`.
    private func occurrences(of needle: [UInt8], in haystack: [UInt8], _ body: (Int) -> Void) {
        haystack.withUnsafeBytes { h in
            needle.withUnsafeBytes { n in
                guard let base = h.baseAddress, let nb = n.baseAddress else { return }
                // memchr (vectorised in libc) finds candidates for the first byte; memcmp checks the rest.
                let first = Int32(n[0])
                var offset = 0
                while offset + n.count <= h.count,
                    let found = memchr(base + offset, first, h.count - offset - n.count + 1)
                {
                    let at = base.distance(to: UnsafeRawPointer(found))
                    if n.count == 1 || memcmp(base + at + 1, nb + 1, n.count - 1) == 0 { body(at) }
                    offset = at + 1
                }
            }
        }
    }

    /// The entry whose text starts at or before `offset`.
    private func entry(containing offset: Int, starts: [Int32]) -> Int {
        var lo = 0, hi = starts.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if Int(starts[mid]) <= offset { lo = mid + 1 } else { hi = mid }
        }
        return max(lo - 1, 0)
    }

    /// Bytes left in the word from `offset` to the next space, comma, period or line end.
    private func wordLength(from offset: Int) -> Int {
        var i = offset
        while i < nameBuffer.count, nameBuffer[i] != 10, nameBuffer[i] != 32, nameBuffer[i] != 44, nameBuffer[i] != 46 {
            i += 1
        }
        return i - offset
    }
}
