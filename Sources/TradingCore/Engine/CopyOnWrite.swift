/// Fields kept in one heap block that copies share until one of them changes: copying a value that holds its fields
/// this way is one retain instead of all their bytes (and a retain of each of their strings and tables). `Order`,
/// `Account` and the backtester's `BarContext` keep their fields so; they are copied far more often than changed.
///
/// Reads go to the block in place. A change goes to the block in place when this value is its only holder, and to a
/// fresh copy of it otherwise, so the values keep value semantics.
public struct CopyOnWrite<Fields> {
    @usableFromInline
    final class Block {
        // Changed only while uniquely referenced (`fields`'s `_modify`, `update`), so sharing it between values is
        // safe. Not checked for exclusive access at run time: every read and change of an order goes through here,
        // and the checks of a class's stored property were ~4% of a backtest's time.
        @exclusivity(unchecked) @usableFromInline var fields: Fields
        @inlinable init(_ fields: Fields) { self.fields = fields }
    }

    @usableFromInline var block: Block

    @inlinable public init(_ fields: Fields) { block = Block(fields) }

    /// The fields: read where they are; changed where they are once this value holds the block alone.
    @inlinable public var fields: Fields {
        _read { yield block.fields }
        _modify {
            if !isKnownUniquelyReferenced(&block) { block = Block(block.fields) }
            yield &block.fields
        }
    }

    /// Several changes with one check that the block is this value's alone.
    @inlinable public mutating func update<Result>(_ body: (inout Fields) -> Result) -> Result {
        if !isKnownUniquelyReferenced(&block) { block = Block(block.fields) }
        return body(&block.fields)
    }

    /// Whether two values share their block (and so are equal, whatever the fields).
    @inlinable public func shares(_ other: Self) -> Bool { block === other.block }
}

// Safe to send when the fields are: a block is changed only while one value holds it.
extension CopyOnWrite: @unchecked Sendable where Fields: Sendable {}
