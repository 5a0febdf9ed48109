import MarketData
import TradingCore

extension Shard {
    /// When a stock's trading is halted, tells the owner of every account that holds it or has an order working in
    /// it why, and when trading resumes (their orders wait for the reopening); once per halt.
    func announceHalt(_ quote: MarketQuote, instrument id: InstrumentID, at now: Timestamp) {
        guard sessionMarks.isNews(quote.halt, for: id) else { return }
        guard let halt = quote.halt else { return }
        let symbol = quote.symbol
        let zone = directory.entry(symbol)?.instrument.calendar.zone ?? .newYork
        let second = zone.localTime(of: halt.end).secondOfDay
        let minute = second / 60 % 60
        let resumes = "\(second / 3600):\(minute < 10 ? "0" : "")\(minute)"
        for account in records.keys.sorted() {
            guard let held = engine.account(account) else { continue }
            let holds = held.positions.values.contains { $0.symbol == symbol && !$0.qty.isZero }
            guard holds || engine.openOrders(of: account).contains(where: { $0.symbol == symbol }) else { continue }
            notify(account, kind: "trading_halt", at: now) { text in
                (
                    text("halt.title", ["symbol": symbol]),
                    text(
                        "halt.body",
                        ["symbol": symbol, "reason": text("halt.reason.\(halt.reason.rawValue)"), "time": resumes])
                )
            }
        }
    }
}
