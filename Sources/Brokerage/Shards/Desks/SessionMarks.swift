import MarketData
import TradingCore

/// What a shard's engine has been told of each instrument's trading days: the date its reference (previous close,
/// price band) was set for, the dates whose opening and closing auctions were applied, and the halt last announced
/// to owners. Each is told once per day (or per halt); a reload from storage starts afresh.
struct SessionMarks {
    private var references: [InstrumentID: CivilDate] = [:]
    private var auctions: [InstrumentID: (open: CivilDate?, close: CivilDate?)] = [:]
    private var halts: [InstrumentID: TradingHalt] = [:]

    /// Whether the instrument's reference still needs setting for `date` (and marks it set).
    mutating func needsReference(_ instrument: InstrumentID, for date: CivilDate) -> Bool {
        guard references[instrument] != date else { return false }
        references[instrument] = date
        return true
    }

    /// Marks the instrument's reference set for `date` (a corporate action set it anew).
    mutating func markReference(_ instrument: InstrumentID, for date: CivilDate) { references[instrument] = date }

    /// The dates of the last opening and closing auctions applied.
    func auctionDates(_ instrument: InstrumentID) -> (open: CivilDate?, close: CivilDate?) {
        auctions[instrument] ?? (nil, nil)
    }

    mutating func setAuctionDates(_ instrument: InstrumentID, _ dates: (open: CivilDate?, close: CivilDate?)) {
        auctions[instrument] = dates
    }

    /// Whether the instrument's halt (or its end: nil) is news since the last announcement (and marks it told).
    mutating func isNews(_ halt: TradingHalt?, for instrument: InstrumentID) -> Bool {
        guard halts[instrument] != halt else { return false }
        halts[instrument] = halt
        return true
    }
}
