/// Which live node should own each virtual shard: every node computes the same answer from the same list of
/// live nodes, so they agree without talking to each other.
///
/// Rendezvous (highest-random-weight) hashing with quotas: each node may hold ⌊s/n⌋ shards, and the s mod n nodes
/// that rank first by a hash of their name one more; each shard ranks the nodes by a hash of (shard, node) and goes
/// to the best-ranked node with room left. The quotas add up to s, so every shard is placed and the spread is
/// exact; when a node joins or leaves, mostly the shards that must move do.
enum ShardAssignment {
    static func assign(shards count: Int, nodes: [String]) -> [Int: String] {
        let nodes = Array(Set(nodes)).sorted()
        guard !nodes.isEmpty, count > 0 else { return [:] }
        let extra = Set(nodes.sorted { weight(-1, $0) > weight(-1, $1) }.prefix(count % nodes.count))
        let quota = Dictionary(
            uniqueKeysWithValues: nodes.map { ($0, count / nodes.count + (extra.contains($0) ? 1 : 0)) })
        var load: [String: Int] = [:]
        var owners: [Int: String] = [:]
        for shard in 0..<count {
            let ranked = nodes.sorted { a, b in
                let (ha, hb) = (weight(shard, a), weight(shard, b))
                return ha != hb ? ha > hb : a < b
            }
            guard let node = ranked.first(where: { load[$0, default: 0] < quota[$0, default: 0] }) else { continue }
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
