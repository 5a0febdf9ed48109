/// Which live node should own each virtual shard: every node computes the same answer from the same list of
/// live nodes, so they agree without talking to each other.
///
/// Rendezvous (highest-random-weight) hashing with a cap: each shard ranks the nodes by a hash of (shard, node),
/// and goes to the best-ranked node that has fewer than ⌈shards / nodes⌉ shards so far. So the spread is even
/// (every node gets ⌊s/n⌋ or ⌈s/n⌉), and when a node joins or leaves, mostly the shards that must move do.
enum ShardAssignment {
    static func assign(shards count: Int, nodes: [String]) -> [Int: String] {
        let nodes = Array(Set(nodes)).sorted()
        guard !nodes.isEmpty, count > 0 else { return [:] }
        let cap = (count + nodes.count - 1) / nodes.count
        var load: [String: Int] = [:]
        var owners: [Int: String] = [:]
        for shard in 0..<count {
            let ranked = nodes.sorted { a, b in
                let (ha, hb) = (weight(shard, a), weight(shard, b))
                return ha != hb ? ha > hb : a < b
            }
            guard let node = ranked.first(where: { load[$0, default: 0] < cap }) else { continue }
            owners[shard] = node
            load[node, default: 0] += 1
        }
        return owners
    }

    /// A stable 64-bit hash of (shard, node): FNV-1a, then a finalizer so nearby inputs spread.
    static func weight(_ shard: Int, _ node: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(shard)/\(node)".utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        hash ^= hash >> 33
        hash &*= 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        return hash
    }
}
